"""The peers' scene managers, driven from Python as their users must drive them.

python-fcl's dynamic tree manager as trimesh's ``CollisionManager`` drives it: every
candidate pair tested by ``fcl.collide`` in a Python callback that collects the touching
pairs. Objects are told apart by their translations (the callback gets new wrappers of
them), so no two objects may share a position. Coal: :class:`CoalPairs`."""

import numpy as np


class FclManager:
    """``geometries``: python-fcl collision geometries (a BVHModel, Capsule, Box ...), one
    per object, placed at ``poses`` (K, 4, 4)."""

    def __init__(self, geometries, poses):
        import fcl

        self.fcl = fcl
        self.objects = [fcl.CollisionObject(g, fcl.Transform()) for g in geometries]
        self.where = {}
        self.place(poses, range(len(self.objects)))
        self.manager = fcl.DynamicAABBTreeCollisionManager()
        self.manager.registerObjects(self.objects)
        self.manager.setup()

    def reset(self, poses):
        self.where = {}
        self.place(poses, range(len(self.objects)))

    def place(self, poses, ids):
        """Set the poses of objects ``ids`` (rows of ``poses``, indexed by id)."""
        for k in ids:
            pose = poses[k]
            self.objects[k].setTransform(self.fcl.Transform(pose[:3, :3], pose[:3, 3]))
            self.where[tuple(pose[:3, 3])] = k

    def step(self, frame, ids=None):
        """Move objects ``ids`` (all by default) to their poses in ``frame``; the set of
        touching pairs (i, j), i < j."""
        fcl = self.fcl
        where = self.where
        self.place(frame, range(len(self.objects)) if ids is None else ids.tolist())
        self.manager.update()
        found = set()

        def collect(o1, o2, data):
            if fcl.collide(o1, o2, fcl.CollisionRequest(), fcl.CollisionResult()):
                a = where[tuple(o1.getTranslation())]
                b = where[tuple(o2.getTranslation())]
                found.add((min(a, b), max(a, b)))
            return False

        self.manager.collide(None, collect)
        return found


def mesh_models(mesh, count):
    """``count`` python-fcl BVH models of one mesh (one per object, as trimesh makes)."""
    import fcl

    models = []
    for _ in range(count):
        model = fcl.BVHModel()
        model.beginModel(len(mesh.vertices), len(mesh.faces))
        model.addSubModel(mesh.vertices, mesh.faces)
        model.endModel()
        models.append(model)
    return models


class CoalPairs:
    """Coal as a Python user must drive it for every touching pair of a scene:
    ``coal.collide`` on each pair whose objects' AABBs (``computeAABB``) meet, the
    AABB overlaps found by numpy over all pairs at once.

    Coal's own managers cannot stand in here: its Python binding (Coal 3.0) neither calls
    a Python subclass's ``collide`` from ``manager.collide`` nor converts the pairs its
    ``CollisionCallBackCollect`` holds to Python, so a manager reports the pairs whose
    boxes meet or the first touching pair, never every touching pair."""

    def __init__(self, models, poses):
        import coal

        self.coal = coal
        eye = np.eye(3)
        self.objects = [coal.CollisionObject(m, coal.Transform3s(eye, np.zeros(3)))
                        for m in models]  # fmt: skip
        self.upper = np.triu(np.ones((len(models),) * 2, bool), 1)
        self.reset(poses)

    def reset(self, poses):
        self.place(poses, range(len(self.objects)))

    def place(self, poses, ids):
        """Set the poses of objects ``ids`` (rows of ``poses``, indexed by id)."""
        for k in ids:
            obj, pose = self.objects[k], poses[k]
            obj.setTransform(self.coal.Transform3s(pose[:3, :3], pose[:3, 3]))
            obj.computeAABB()

    def step(self, frame, ids=None):
        """Move objects ``ids`` (all by default) to their poses in ``frame``; the set of
        touching pairs (i, j), i < j."""
        coal = self.coal
        self.place(frame, range(len(self.objects)) if ids is None else ids.tolist())
        boxes = [obj.getAABB() for obj in self.objects]
        lo = np.array([b.min_ for b in boxes])
        hi = np.array([b.max_ for b in boxes])
        meet = self.upper & np.all(
            (lo[:, None] <= hi[None]) & (lo[None] <= hi[:, None]), axis=2
        )
        found = set()
        objects = self.objects
        for i, j in zip(*np.nonzero(meet), strict=True):
            result = coal.CollisionResult()
            if coal.collide(objects[i], objects[j], coal.CollisionRequest(), result):
                found.add((int(i), int(j)))
        return found


def coal_models(mesh, count):
    """``count`` Coal ``BVHModelOBBRSS`` models of one mesh (Coal's default for meshes)."""
    import coal

    models = []
    vertices = np.asarray(mesh.vertices, np.float64)
    faces = np.asarray(mesh.faces, np.int64)
    for _ in range(count):
        model = coal.BVHModelOBBRSS()
        model.beginModel(len(faces), len(vertices))
        model.addVertices(vertices)
        model.addTriangles(faces)
        model.endModel()
        models.append(model)
    return models
