"""python-fcl's dynamic tree manager as trimesh's ``CollisionManager`` drives it: every
candidate pair tested by ``fcl.collide`` in a Python callback that collects the touching
pairs. Objects are told apart by their translations (the callback gets new wrappers of
them), so no two objects may share a position."""


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
