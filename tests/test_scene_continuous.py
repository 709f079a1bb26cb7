"""Continuous mode and 2D scenes of the compiled Scene step."""

import numpy as np
import pytest

import hitbox as hb
from hitbox._types import OBBs, Spheres
from hitbox.pipeline import Scene
from tests.strategies import rotation


def _bullet(rng, kind):
    if kind == "sphere":
        return Spheres(np.zeros(3), rng.uniform(0.02, 0.2))
    if kind == "aabb":
        h = rng.uniform(0.02, 0.2, 3)
        return np.stack([-h, h])
    return OBBs(np.zeros(3), rng.uniform(0.02, 0.2, 3), rotation(rng))


@pytest.mark.parametrize("kind", ["sphere", "aabb", "obb"])
@pytest.mark.parametrize("spin", [False, True])
def test_no_bullet_tunnels_through_a_thin_wall(kind, spin):
    """Bullets crossing a wall of thickness 0.1 within one step, at up to 100 wall
    thicknesses per step, some spinning: continuous mode reports every one (with a
    contact time inside the step), where the discrete step misses nearly all."""
    rng = np.random.default_rng(17 + spin)
    found = missed_by_discrete = 0
    for _ in range(40):
        thick = 0.1
        dt = 0.1
        speed = rng.uniform(5, 100) * thick / dt
        scene = Scene()
        wall = scene.add(np.array([[-thick / 2, -5, -5], [thick / 2, 5, 5]]), static=True)
        start = np.eye(4)
        # behind the wall by less than one step's travel, aimed through it
        start[:3, 3] = [
            -thick / 2 - rng.uniform(0.25, 0.9) * speed * dt,
            *rng.uniform(-2, 2, 2),
        ]
        motion = {"velocity": (speed, *rng.normal(0, 0.1 * speed, 2))}
        if spin:
            motion["angular_velocity"] = rng.normal(0, 20, 3)
        shape = _bullet(rng, kind)
        twin = Scene()
        twin.add(np.array([[-thick / 2, -5, -5], [thick / 2, 5, 5]]), static=True)
        bullet = scene.add(shape, start, **motion)
        twin.add(shape, start, **motion)
        result = scene.step(dt, continuous=True)
        assert result.pairs.tolist() == [[wall], [bullet]]
        assert 0.0 <= result.toi[0] <= dt
        found += 1
        missed_by_discrete += twin.step(dt).pairs.shape[1] == 0
    assert found == 40 and missed_by_discrete >= 30


def test_contact_times_equal_the_exact_sweeps():
    """Constant velocities: spheres and boxes give the closed-form first contact time of
    hitbox.sweep (within 1e-9)."""
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(600):
        dt = 0.5
        scene = Scene(threshold=0.0)
        ca, cb = rng.uniform(-2, 2, (2, 3))
        va, vb = rng.normal(0, 6, (2, 3))
        if rng.random() < 0.5:
            ra, rb = rng.uniform(0.1, 1, 2)
            a = scene.add(Spheres(np.zeros(3), ra), _at(ca), velocity=va)
            b = scene.add(Spheres(np.zeros(3), rb), _at(cb), velocity=vb)
            ref = hb.sweep.sphere_sphere(Spheres(cb, rb), Spheres(ca, ra), (vb - va) * dt)
        else:
            ha, hb_ = rng.uniform(0.1, 1, (2, 3))
            a = scene.add(np.stack([-ha, ha]), _at(ca), velocity=va)
            b = scene.add(np.stack([-hb_, hb_]), _at(cb), velocity=vb)
            ref = hb.sweep.aabb_aabb(
                np.stack([cb - hb_, cb + hb_]),
                np.stack([ca - ha, ca + ha]),
                (vb - va) * dt,
            )
        result = scene.step(dt, continuous=True)
        if ref.hit:
            assert result.pairs.tolist() == [[a], [b]]
            assert abs(result.toi[0] - ref.t * dt) <= 1e-9
            checked += 1
        else:
            assert result.pairs.shape[1] == 0
    assert checked > 50


def _at(center):
    pose = np.eye(4)
    pose[:3, 3] = center
    return pose


def test_continuous_agrees_with_dense_substeps():
    """Spinning, accelerating spheres and boxes: every pair that touches at one of 64
    sub-step times is reported by one continuous step, no later than that time; and
    every pair touching at the end of the step is reported too."""
    rng = np.random.default_rng(5)
    dt, sub = 0.2, 64
    for seed in range(6):
        rng = np.random.default_rng(seed)
        shapes, poses, motions = [], [], []
        for k in range(12):
            shapes.append(_bullet(rng, ["sphere", "aabb", "obb"][k % 3]))
            pose = _at(rng.uniform(-1.2, 1.2, 3))
            pose[:3, :3] = rotation(rng)
            poses.append(pose)
            motions.append({"velocity": rng.normal(0, 3, 3),
                            "angular_velocity": rng.normal(0, 6, 3),
                            "acceleration": rng.normal(0, 2, 3)})  # fmt: skip
        cont = Scene(threshold=0.0)
        fine = Scene(threshold=0.0)
        for s, p, m in zip(shapes, poses, motions, strict=True):
            cont.add(s, p, **m)
            fine.add(s, p, **m)
        result = cont.step(dt, continuous=True)
        toi = {
            tuple(p): t for p, t in zip(result.pairs.T.tolist(), result.toi, strict=True)
        }
        for k in range(1, sub + 1):
            for pair in fine.step(dt / sub).pairs.T.tolist():
                assert tuple(pair) in toi, (seed, k, pair)
                assert toi[tuple(pair)] <= k * dt / sub + 1e-9
        end = set(map(tuple, fine.query().pairs.T.tolist()))
        assert end <= set(toi)


def test_continuous_mode_checks_its_flag():
    scene = Scene()
    with pytest.raises(TypeError, match="continuous"):
        scene.step(0.1, continuous="yes")
    assert scene.step(0.1, continuous=True).toi.shape == (0,)
    assert scene.step(0.1).toi is None


# -- 2D --------------------------------------------------------------------------------


def _rect_overlap(ca, ha, ra, cb, hb_, rb):
    """2D separating axes of two rectangles (closed), the oracle."""
    d = cb - ca
    for axes in (ra, rb):
        for k in range(2):
            n = axes[:, k]
            reach = sum(
                abs(n @ ra[:, q]) * ha[q] + abs(n @ rb[:, q]) * hb_[q] for q in range(2)
            )
            if abs(n @ d) > reach + 1e-12:
                return False
    return True


def _pose2(rng, reach):
    a = rng.uniform(0, 2 * np.pi)
    out = np.eye(3)
    out[:2, :2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    out[:2, 2] = rng.uniform(-reach, reach, 2)
    return out


def test_2d_scene_equals_plane_geometry():
    """Discs, boxes and rotated rectangles moving and turning in the plane: every step's
    pairs equal the 2D tests (distance of centres; separating axes of rectangles; a
    disc against a rectangle by clamping), and poses come back as 3x3."""
    rng = np.random.default_rng(8)
    scene = Scene(dim=2, threshold=0.2)
    shapes = []
    for k in range(24):
        pose = _pose2(rng, 3.0)
        motion = {"velocity": rng.normal(0, 0.5, 2), "angular_velocity": rng.normal(0, 1)}
        if k % 3 == 0:
            r = rng.uniform(0.1, 0.5)
            scene.add(Spheres(np.zeros(2), r), pose, **motion)
            shapes.append(("disc", r, None))
        elif k % 3 == 1:
            h = rng.uniform(0.1, 0.5, 2)
            scene.add(np.stack([-h, h]), pose, **motion)
            shapes.append(("rect", h, np.eye(2)))
        else:
            h = rng.uniform(0.1, 0.5, 2)
            a = rng.uniform(0, np.pi)
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            scene.add(OBBs(np.zeros(2), h, rot), pose, **motion)
            shapes.append(("rect", h, rot))
    touching = 0
    for _ in range(40):
        got = set(map(tuple, scene.step(0.05).pairs.T.tolist()))
        want = set()
        world = []
        for k, (kind, size, rot) in enumerate(shapes):
            pose = scene.pose(k)
            assert pose.shape == (3, 3)
            world.append(
                (kind, size, pose[:2, 2], None if rot is None else pose[:2, :2] @ rot)
            )
        for i in range(len(world)):
            for j in range(i + 1, len(world)):
                if _touch2(world[i], world[j]):
                    want.add((i, j))
        assert got == want
        touching += len(got)
    assert touching > 10


def _touch2(a, b):
    if a[0] == "disc" and b[0] == "disc":
        return np.linalg.norm(a[2] - b[2]) <= a[1] + b[1] + 1e-12
    if a[0] == "disc" or b[0] == "disc":
        disc, rect = (a, b) if a[0] == "disc" else (b, a)
        local = rect[3].T @ (disc[2] - rect[2])
        gap = np.maximum(np.abs(local) - rect[1], 0.0)
        return np.linalg.norm(gap) <= disc[1] + 1e-12
    return _rect_overlap(a[2], a[1], a[3], b[2], b[1], b[3])


def test_2d_scene_rejects_3d_input():
    scene = Scene(dim=2)
    with pytest.raises(ValueError, match="disc"):
        scene.add(Spheres(np.zeros(3), 1.0))
    with pytest.raises(ValueError, match="3x3"):
        scene.add(Spheres(np.zeros(2), 1.0), np.eye(4))
    with pytest.raises(ValueError, match=r"\(2,\)"):
        scene.add(Spheres(np.zeros(2), 1.0), velocity=(1.0, 0, 0))
    with pytest.raises(TypeError, match="2D scene"):
        scene.add(np.zeros((2, 3)))
    a = scene.add(Spheres(np.zeros(2), 1.0))
    with pytest.raises(ValueError, match=r"\(1,\)"):
        scene.set_velocities([a], angular_velocities=np.zeros((1, 3)))
    with pytest.raises(ValueError, match="dim"):
        Scene(dim=4)
    assert len(scene) == 1


def _box_mesh(half):
    import trimesh

    box = trimesh.creation.box(extents=2 * np.asarray(half, float))
    return hb.TriangleMesh(box.vertices, box.faces, node="obb")


def _wall_and_bullet(rng, wall, bullet, behind, speed, spin):
    """Two scenes of a static wall and a bullet ``behind`` its centre plane x = 0 flying
    at it along x at ``speed`` (turned and spinning with ``spin``): one to step
    continuously, one discretely."""
    start = np.eye(4)
    start[:3, 3] = [-behind, *rng.uniform(-1, 1, 2)]
    motion = {"velocity": (speed, 0.0, 0.0)}
    if spin:
        motion["angular_velocity"] = rng.normal(0, 20, 3)
        start[:3, :3] = rotation(rng)
    scenes = []
    for _ in range(2):
        scene = Scene()
        scene.add(wall, static=True)
        scene.add(bullet, start, **motion)
        scenes.append(scene)
    return scenes


@pytest.mark.parametrize("spin", [False, True])
def test_no_mesh_bullet_tunnels_through_a_mesh_wall(spin):
    """Mesh bullets (boxes and tori) through a mesh wall 0.1 thick within one step, at
    up to 100 wall thicknesses per step: continuous mode reports every one, with a
    contact time within the step, where the discrete step misses nearly all; without
    spin, the contact time is the closed form's (to the contact tolerance)."""
    from hitbox._torus import torus_mesh

    rng = np.random.default_rng(29 + spin)
    thick, dt = 0.1, 0.1
    wall_mesh = _box_mesh([thick / 2, 3, 3])
    torus = hb.TriangleMesh(*torus_mesh(200, r_major=0.15, r_minor=0.05), node="obb")
    missed_by_discrete = 0
    for k in range(16):
        speed = rng.uniform(5, 100) * thick / dt
        half = rng.uniform(0.02, 0.2, 3)
        bullet_mesh = _box_mesh(half) if k % 2 else torus
        reach = half[0] if k % 2 else 0.2
        gap = rng.uniform(0.25, 0.9) * speed * dt
        scenes = _wall_and_bullet(rng, wall_mesh, bullet_mesh, thick / 2 + reach + gap,
                                  speed, spin)  # fmt: skip
        result = scenes[0].step(dt, continuous=True)
        assert result.pairs.tolist() == [[0], [1]]
        assert 0.0 <= result.toi[0] <= dt
        if not spin and k % 2:  # a box's face meets the wall's face: gap / speed
            assert result.toi[0] == pytest.approx(gap / speed, abs=1e-6)
        missed_by_discrete += scenes[1].step(dt).pairs.shape[1] == 0
    assert missed_by_discrete >= 10


def test_mesh_pairs_in_continuous_mode_agree_with_dense_substeps():
    """Spinning, drifting tori: a pair continuous mode calls apart in a step never
    touches at any of 200 sub-steps of it, and one that touches at a sub-step is
    reported, no later than that sub-step."""
    from hitbox._torus import torus_mesh

    rng = np.random.default_rng(5)
    mesh = hb.TriangleMesh(*torus_mesh(300, r_major=0.5, r_minor=0.15), node="obb")
    dt, subs = 0.2, 200
    checked = touched = 0
    for _ in range(12):
        touched += _swept_against_substeps(rng, mesh, True, mesh, 1.6, dt, subs)
        checked += 1
    assert checked == 12 and touched >= 3


def _swept_against_substeps(rng, first_shape, static, mesh, reach, dt, subs):
    """A mesh turning and drifting from a random pose within ``reach`` near
    ``first_shape``: the continuous step against ``subs`` sub-steps of a twin. A pair
    touching at a sub-step is reported, no later than it; one reported touching only
    between sub-steps, within the step. Returns whether a sub-step touched."""
    start = np.eye(4)
    start[:3, :3] = rotation(rng)
    start[:3, 3] = rng.uniform(-reach, reach, 3)
    motion = {"velocity": rng.normal(0, 2, 3), "angular_velocity": rng.normal(0, 3, 3)}
    swept, fine = Scene(), Scene()
    for scene in (swept, fine):
        scene.add(first_shape, static=static)
        scene.add(mesh, start, **motion)
    result = swept.step(dt, continuous=True)
    first = None
    for s in range(subs):
        if fine.step(dt / subs).pairs.shape[1]:
            first = (s + 1) * dt / subs
            break
    if first is not None:
        assert result.pairs.shape[1] == 1 and result.toi[0] <= first + 1e-12
    elif result.pairs.shape[1]:  # a contact between sub-steps: within the step
        assert 0.0 <= result.toi[0] <= dt
    return first is not None


def _plain_wall(kind, thick):
    """A wall 0.1 thick across x = 0 as a plain volume of each kind (a half-space: all
    of x >= -thick / 2)."""
    half = np.array([thick / 2, 3.0, 3.0])
    if kind == "aabb":
        return np.stack([-half, half])
    if kind == "obb":
        return OBBs(np.zeros(3), half, np.eye(3))
    if kind == "box":
        return hb.convex.box(np.zeros(3), half)
    return hb.convex.halfspace([-1.0, 0.0, 0.0], thick / 2)


def _plain_bullet(kind, half):
    if kind == "sphere":
        return Spheres(np.zeros(3), half[0])
    if kind == "obb":
        return OBBs(np.zeros(3), half, np.eye(3))
    return hb.convex.capsule([-half[0], 0, 0], [half[0], 0, 0], half[1])


@pytest.mark.parametrize(
    "wall, bullet",
    [("aabb", "mesh"), ("obb", "mesh"), ("box", "mesh"), ("halfspace", "mesh"),
     ("mesh", "sphere"), ("mesh", "obb"), ("mesh", "capsule")],
)  # fmt: skip
@pytest.mark.parametrize("spin", [False, True])
def test_no_bullet_tunnels_between_a_mesh_and_a_plain_volume(wall, bullet, spin):
    """A mesh bullet through a plain wall (a box, an OBB, a convex box, a half-space)
    and plain bullets (a ball, an OBB, a capsule) through a mesh wall, 0.1 thick, at up
    to 100 wall thicknesses per step: continuous mode reports every one, within the
    step, where the discrete step misses most; a box's face meeting the wall's
    without spin meets it at the closed form's time (to the contact tolerance)."""
    rng = np.random.default_rng(41 + spin)
    thick, dt = 0.1, 0.1
    missed_by_discrete = 0
    for _ in range(8):
        speed = rng.uniform(5, 100) * thick / dt
        half = rng.uniform(0.02, 0.2, 3)
        if bullet == "mesh":
            wall_shape, bullet_shape = _plain_wall(wall, thick), _box_mesh(half)
        else:
            wall_shape = _box_mesh([thick / 2, 3, 3])
            bullet_shape = _plain_bullet(bullet, half)
        gap = rng.uniform(0.25, 0.9) * speed * dt
        scenes = _wall_and_bullet(rng, wall_shape, bullet_shape,
                                  thick / 2 + half[0] + gap, speed, spin)  # fmt: skip
        result = scenes[0].step(dt, mode="all", continuous=True)
        assert result.pairs.tolist() == [[0], [1]]
        assert 0.0 <= result.toi[0] <= dt
        if not spin and bullet in ("mesh", "obb"):  # face against face: gap / speed
            assert result.toi[0] == pytest.approx(gap / speed, abs=1e-6)
        if bullet != "mesh":  # the wall's face that came nearest
            assert result.triangles[0, 0] >= 0 and result.triangles[1, 0] == -1
        missed_by_discrete += scenes[1].step(dt).pairs.shape[1] == 0
    # a half-space has no far side to come out of: the discrete step sees it too
    assert missed_by_discrete >= (0 if wall == "halfspace" else 5)


def test_mesh_and_plain_pairs_in_continuous_mode_agree_with_dense_substeps():
    """A spinning, drifting torus among plain volumes of every kind: a pair that
    touches at one of 200 sub-steps of a step is reported, no later than that
    sub-step; a pair reported touching only between sub-steps, within the step."""
    from hitbox._torus import torus_mesh

    rng = np.random.default_rng(8)
    mesh = hb.TriangleMesh(*torus_mesh(300, r_major=0.5, r_minor=0.15), node="obb")
    dt, subs = 0.2, 200
    touched = 0
    for k in range(20):
        c = rng.uniform(-0.2, 0.2, 3)
        plain = [
            Spheres(c, rng.uniform(0.05, 0.3)),
            OBBs(c, rng.uniform(0.05, 0.3, 3), rotation(rng)),
            hb.convex.capsule(c - 0.2, c + 0.2, rng.uniform(0.03, 0.2)),
            hb.convex.cone(c, c + rng.normal(size=3) * 0.3, rng.uniform(0.05, 0.3)),
        ][k % 4]
        touched += _swept_against_substeps(rng, plain, k % 2 == 0, mesh, 0.8, dt, subs)
    assert touched >= 4
