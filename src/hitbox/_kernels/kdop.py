"""k-DOP kernels beyond the shared slab tests: the polytope's vertices, for transforms."""

from numba import njit


@njit(cache=True, nogil=True)
def vertices(kdops, axes, out, counts):
    """Vertices of each k-DOP polytope {x : lo <= axes @ x <= hi}.

    Every triple of bounding planes with independent normals is solved by Cramer's rule and
    kept if it satisfies all slabs to a relative tolerance (Klosowski et al. 1998 bound
    k-DOPs by their slabs; the vertices are what a transform moves). ``out`` is (N, V, 3)
    with V = C(K, 3); ``counts[i]`` says how many rows of ``out[i]`` are vertices.
    """
    s = axes.shape[0]
    planes = 2 * s
    for i in range(len(kdops)):
        scale = 0.0
        for k in range(s):
            scale = max(scale, abs(kdops[i, 0, k]), abs(kdops[i, 1, k]))
        tol = 1e-9 * (scale + 1.0)
        n = 0
        for p in range(planes):
            for q in range(p + 1, planes):
                for r in range(q + 1, planes):
                    a0 = axes[p % s]
                    a1 = axes[q % s]
                    a2 = axes[r % s]
                    d0 = kdops[i, p // s, p % s]
                    d1 = kdops[i, q // s, q % s]
                    d2 = kdops[i, r // s, r % s]
                    # det of rows a0, a1, a2
                    c0x = a1[1] * a2[2] - a1[2] * a2[1]
                    c0y = a1[2] * a2[0] - a1[0] * a2[2]
                    c0z = a1[0] * a2[1] - a1[1] * a2[0]
                    det = a0[0] * c0x + a0[1] * c0y + a0[2] * c0z
                    if abs(det) < 1e-12:
                        continue
                    c1x = a2[1] * a0[2] - a2[2] * a0[1]
                    c1y = a2[2] * a0[0] - a2[0] * a0[2]
                    c1z = a2[0] * a0[1] - a2[1] * a0[0]
                    c2x = a0[1] * a1[2] - a0[2] * a1[1]
                    c2y = a0[2] * a1[0] - a0[0] * a1[2]
                    c2z = a0[0] * a1[1] - a0[1] * a1[0]
                    x = (d0 * c0x + d1 * c1x + d2 * c2x) / det
                    y = (d0 * c0y + d1 * c1y + d2 * c2y) / det
                    z = (d0 * c0z + d1 * c1z + d2 * c2z) / det
                    inside = True
                    for k in range(s):
                        proj = axes[k, 0] * x + axes[k, 1] * y + axes[k, 2] * z
                        if proj < kdops[i, 0, k] - tol or proj > kdops[i, 1, k] + tol:
                            inside = False
                            break
                    if inside:
                        out[i, n, 0] = x
                        out[i, n, 1] = y
                        out[i, n, 2] = z
                        n += 1
        counts[i] = n
