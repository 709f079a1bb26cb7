"""The seed's test object (SPEC §10): a closed torus mesh of a chosen triangle count."""

import numpy as np

#: (major sections, minor sections) for the triangle counts the paper uses.
SECTIONS = {5_000: (100, 25), 20_000: (200, 50)}


def torus_mesh(n_triangles=5_000, r_major=1.0, r_minor=0.3):
    """Vertices (V, 3) and faces (F, 3) of a closed torus about the z axis, outward facing.

    ``n_triangles`` is 2 * major * minor; the paper's 5,000 and 20,000 use the sections in
    :data:`SECTIONS`, other even counts a near-square split.
    """
    if n_triangles in SECTIONS:
        n_major, n_minor = SECTIONS[n_triangles]
    else:
        quads = max(int(n_triangles) // 2, 9)
        n_minor = max(3, int(round(np.sqrt(quads / 4))))
        n_major = max(3, quads // n_minor)
    u = np.linspace(0, 2 * np.pi, n_major, endpoint=False)
    w = np.linspace(0, 2 * np.pi, n_minor, endpoint=False)
    uu, ww = np.meshgrid(u, w, indexing="ij")
    ring = r_major + r_minor * np.cos(ww)
    verts = np.column_stack(
        [
            (ring * np.cos(uu)).ravel(),
            (ring * np.sin(uu)).ravel(),
            (r_minor * np.sin(ww)).ravel(),
        ]
    )
    i, j = np.meshgrid(np.arange(n_major), np.arange(n_minor), indexing="ij")
    a = i * n_minor + j
    b = ((i + 1) % n_major) * n_minor + j
    c = ((i + 1) % n_major) * n_minor + (j + 1) % n_minor
    d = i * n_minor + (j + 1) % n_minor
    faces = np.concatenate(
        [
            np.column_stack([a.ravel(), b.ravel(), c.ravel()]),
            np.column_stack([a.ravel(), c.ravel(), d.ravel()]),
        ]
    )
    return verts, faces.astype(np.intp)
