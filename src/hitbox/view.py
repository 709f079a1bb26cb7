"""A self-contained HTML 3D view: meshes, their tree's volumes at a depth, contacts.

The page inlines three.js (vendored from its npm package under ``hitbox/data/three``, MIT)
as ES modules behind an import map of ``data:`` URLs, so it opens offline from a plain
``file://`` path in any current browser, with no server. Drag to orbit, scroll to zoom,
right-drag to pan; the panel at the top left toggles the meshes, the volumes and an
x-ray mode.

For tests and scripts the page sets, after its first frame, ``window.hitboxReady = true``
and ``window.hitboxObjectCount`` (also as the ``data-hitbox-ready`` and
``data-hitbox-objects`` attributes of ``<html>``), or ``data-hitbox-error`` with the
reason if it could not draw (no WebGL, say).
"""

import base64
import html
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = [
    "write_html",
    "nodes_at_depth",
    "ViewFile",
    "PALETTE",
    "HIGHLIGHT",
    "THREE_VERSION",
]

#: Mesh colours used in turn when a mesh is given none.
PALETTE = ("#8fb3d9", "#e3b66b", "#9fcf9f", "#c9a3dc", "#e39a9a", "#9ad0d0")
#: Colour of highlighted (colliding) triangles.
HIGHLIGHT = "#ff2a2a"
#: The vendored three.js release (``hitbox/data/three``).
THREE_VERSION = "0.185.0"

_CORE_IMPORT = 'from"./three.core.min.js"'


class ViewFile(NamedTuple):
    """What :func:`write_html` wrote.

    path : Path
    objects : int, what the page draws: one per mesh, one per bounding volume, one per
        mesh with highlighted triangles (the page reports the count it drew)
    volumes : int, bounding volumes drawn, over all meshes
    """

    path: Path
    objects: int
    volumes: int


def write_html(
    path, meshes, *, volumes_depth=None, highlight=None, title="hitbox view", opacity=0.8
):
    """Write one HTML file that draws meshes, tree volumes and colliding triangles.

    Parameters
    ----------
    path : str or PathLike
        The ``.html`` file to write (missing folders are made).
    meshes : sequence of TriangleMesh or (TriangleMesh, pose, colour[, name]) tuples
        ``pose`` is a ``(4, 4)`` placement in the world (None: identity); ``colour`` is
        ``"#rrggbb"`` or an ``(r, g, b)`` triple in [0, 1] (None: from :data:`PALETTE`);
        ``name`` labels the mesh in the page's panel (default ``"mesh i"``).
    volumes_depth : int >= 0, optional
        Draw each mesh's tree volumes at this depth: the nodes at that depth, and the
        leaves above it, so that they cover the mesh. Boxes for ``aabb`` and ``kdopK``
        trees (a k-DOP node as its AABB), spheres for ``sphere`` trees and boxes along
        their own axes for ``obb`` trees. A depth past a tree's depth draws its leaves.
    highlight : dict {mesh index: (n,) face indices}, optional
        Triangles drawn on top in :data:`HIGHLIGHT`, e.g. the faces of
        ``mesh.intersect(other, pose, mode="all")``.
    title : str
    opacity : float in (0, 1]
        Of the meshes; below 1 shows the contacts and volumes inside them.

    Returns
    -------
    ViewFile
    """
    items = [_mesh_item(i, m) for i, m in enumerate(meshes)]
    if volumes_depth is not None and (
        isinstance(volumes_depth, bool)
        or not isinstance(volumes_depth, int | np.integer)
        or volumes_depth < 0
    ):
        raise ValueError(f"volumes_depth must be an integer >= 0, got {volumes_depth!r}")
    if not 0.0 < float(opacity) <= 1.0:
        raise ValueError(f"opacity must be in (0, 1], got {opacity!r}")
    highlight = _highlights(highlight, items)
    payload = {"title": str(title), "opacity": float(opacity), "meshes": []}
    objects = volumes = 0
    for i, (mesh, pose, colour, name) in enumerate(items):
        entry = {
            "name": html.escape(name),
            "faces": int(mesh.n_faces),
            "colour": colour,
            "pose": pose.ravel().tolist(),
            "positions": _b64(mesh.vertices, np.float32),
            "indices": _b64(mesh.faces, np.uint32),
            "highlight": None,
            "volumes": None,
        }
        objects += 1
        if i in highlight:
            entry["highlight"] = _b64(highlight[i], np.uint32)
            entry["highlightCount"] = len(highlight[i])
            objects += 1
        if volumes_depth is not None and mesh.bvh.n_nodes:
            kind, data = _volumes(mesh.bvh, nodes_at_depth(mesh.bvh, volumes_depth))
            entry["volumes"] = {
                "kind": kind,
                "count": len(data),
                "data": _b64(data, np.float32),
            }
            entry["treeKind"] = mesh.bvh.kind
            objects += len(data)
            volumes += len(data)
        payload["meshes"].append(entry)
    payload["depth"] = volumes_depth
    path = Path(os.fspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_page(payload), encoding="utf-8")
    return ViewFile(path, objects, volumes)


def nodes_at_depth(tree, depth):
    """Indices of a tree's nodes at ``depth`` and of its leaves above it, sorted.

    Together they cover every primitive once (root: depth 0). Children sit after their
    parents, so one pass per level finds them.
    """
    if tree.n_nodes == 0:
        return np.zeros(0, np.intp)
    level = np.zeros(1, np.intp)
    done = []
    for _ in range(depth):
        leaf = tree.node_count[level] > 0
        done.append(level[leaf])
        inner = level[~leaf]
        if not len(inner):
            level = inner
            break
        first = tree.node_first[inner]
        level = np.stack([first, first + 1], axis=1).ravel()
    return np.sort(np.concatenate([*done, level]))


# -- helpers -----------------------------------------------------------------------------


def _mesh_item(i, item):
    from hitbox.mesh import TriangleMesh

    if isinstance(item, TriangleMesh):
        item = (item, None, None)
    if not isinstance(item, tuple | list) or len(item) not in (3, 4):
        raise TypeError(
            f"meshes[{i}] must be a TriangleMesh or a (mesh, pose, colour[, name]) "
            f"tuple, got {type(item).__name__}"
        )
    mesh, pose, colour = item[:3]
    name = str(item[3]) if len(item) == 4 else f"mesh {i}"
    if not isinstance(mesh, TriangleMesh):
        raise TypeError(
            f"meshes[{i}][0] must be a TriangleMesh, got {type(mesh).__name__}"
        )
    pose = np.eye(4) if pose is None else np.asarray(pose, dtype=np.float64)
    if pose.shape != (4, 4) or not np.isfinite(pose).all():
        raise ValueError(
            f"meshes[{i}] pose must be a finite 4x4 matrix, got {pose.shape}"
        )
    return (
        mesh,
        pose,
        _colour(colour, PALETTE[i % len(PALETTE)], f"meshes[{i}] colour"),
        name,
    )


def _colour(value, default, name):
    if value is None:
        return default
    if isinstance(value, str):
        text = value.strip().lower()
        if text.startswith("#") and len(text) in (4, 7):
            try:
                int(text[1:], 16)
            except ValueError:
                pass
            else:
                return text if len(text) == 7 else "#" + "".join(c * 2 for c in text[1:])
        raise ValueError(
            f"{name} must be '#rrggbb' or an (r, g, b) triple, got {value!r}"
        )
    rgb = np.asarray(value, dtype=np.float64)
    if rgb.shape != (3,) or not ((rgb >= 0) & (rgb <= 1)).all():
        raise ValueError(
            f"{name} must be '#rrggbb' or (r, g, b) in [0, 1], got {value!r}"
        )
    return "#" + "".join(f"{int(round(c * 255)):02x}" for c in rgb)


def _highlights(highlight, items):
    if highlight is None:
        return {}
    if not isinstance(highlight, dict):
        raise TypeError(f"highlight must be a dict, got {type(highlight).__name__}")
    out = {}
    for key, faces in highlight.items():
        if isinstance(key, bool) or not isinstance(key, int | np.integer):
            raise TypeError(f"highlight keys must be mesh indices, got {key!r}")
        if not 0 <= key < len(items):
            raise ValueError(f"highlight names mesh {key}; there are {len(items)} meshes")
        faces = np.unique(np.asarray(faces, dtype=np.int64).ravel())
        n_faces = items[key][0].n_faces
        if len(faces) and (faces[0] < 0 or faces[-1] >= n_faces):
            raise ValueError(f"highlight[{key}] indexes past the mesh's {n_faces} faces")
        if len(faces):
            out[int(key)] = faces
    return out


def _volumes(tree, nodes):
    """(shape kind, (n, stride) float rows) of the given nodes, as the page draws them."""
    if tree.kind == "sphere":
        bv = tree.node_bv
        return "sphere", np.column_stack([bv.center[nodes], bv.radius[nodes]])
    if tree.kind == "obb":
        bv = tree.node_bv
        return "obb", np.column_stack(
            [bv.center[nodes], bv.half[nodes], bv.rot[nodes].reshape(-1, 9)]
        )
    return "box", tree.node_box[nodes].reshape(-1, 6)


def _b64(arr, dtype):
    return base64.b64encode(np.ascontiguousarray(arr, dtype=dtype).tobytes()).decode(
        "ascii"
    )


def _data_url(text):
    return "data:text/javascript;base64," + base64.b64encode(text.encode()).decode(
        "ascii"
    )


def _vendored(name):
    return resources.files("hitbox").joinpath("data", "three", name).read_text("utf-8")


def _import_map():
    """three.js as data: URLs. three.module imports its core by a relative path, which
    cannot resolve against a data: URL, so that one specifier is renamed to a bare one."""
    module = _vendored("three.module.min.js")
    if _CORE_IMPORT not in module:
        raise RuntimeError("the vendored three.module.min.js no longer imports its core")
    module = module.replace(_CORE_IMPORT, 'from"three/core"')
    imports = {
        "three": _data_url(module),
        "three/core": _data_url(_vendored("three.core.min.js")),
        "three/addons/OrbitControls.js": _data_url(_vendored("OrbitControls.js")),
    }
    return json.dumps({"imports": imports})


def _page(payload):
    fields = {
        "TITLE": html.escape(payload["title"]),
        "IMPORTMAP": _import_map(),
        "DATA": json.dumps(payload, separators=(",", ":")).replace("<", "\\u003c"),
        "APP": _APP,
    }
    return re.sub(r"@([A-Z]+)@", lambda m: fields[m.group(1)], _HTML)


_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<!-- three.js (c) 2010-2026 three.js authors, MIT licence; inlined for offline use. -->
<style>
  html, body { margin: 0; height: 100%; overflow: hidden; background: #f4f5f7;
    font: 13px/1.4 system-ui, sans-serif; color: #222; }
  canvas { display: block; }
  #hud { position: absolute; top: 10px; left: 10px; padding: 8px 10px; max-width: 40%;
    background: rgba(255, 255, 255, 0.85); border-radius: 6px; }
  #hud h1 { font-size: 14px; margin: 0 0 4px; }
  #hud .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px;
    border-radius: 2px; vertical-align: middle; }
  #hud label { margin-right: 10px; }
  #hud .error { color: #b00; }
</style>
<script type="importmap">@IMPORTMAP@</script>
</head>
<body>
<div id="hud"><h1>@TITLE@</h1><div id="hud-body">loading...</div></div>
<script type="application/json" id="hitbox-data">@DATA@</script>
<script type="module">@APP@</script>
</body>
</html>
"""

_APP = r"""
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/OrbitControls.js';

const root = document.documentElement;
const hud = document.getElementById('hud-body');

function decode(text, Type) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

// The 12 edges of a box: corners c and c | bit, bit k of c choosing lo/hi on axis k.
const EDGES = [];
for (let c = 0; c < 8; c++) {
  for (let b = 0; b < 3; b++) if (!(c & (1 << b))) EDGES.push(c, c | (1 << b));
}

function pushBox(out, corner) {
  for (const k of EDGES) { const p = corner(k); out.push(p[0], p[1], p[2]); }
}

const CIRCLE = 48;
function pushSphere(out, c, r) {
  for (let axis = 0; axis < 3; axis++) {
    const u = (axis + 1) % 3, w = (axis + 2) % 3;
    for (let s = 0; s < CIRCLE; s++) {
      for (const t of [s, s + 1]) {
        const a = (2 * Math.PI * t) / CIRCLE, p = [c[0], c[1], c[2]];
        p[u] += r * Math.cos(a); p[w] += r * Math.sin(a);
        out.push(p[0], p[1], p[2]);
      }
    }
  }
}

function volumeLines(vol) {
  const v = decode(vol.data, Float32Array), out = [];
  const stride = { box: 6, sphere: 4, obb: 15 }[vol.kind];
  let drawn = 0;
  for (let i = 0; i < vol.count; i++) {
    const o = i * stride;
    if (vol.kind === 'box') {
      pushBox(out, (k) => [0, 1, 2].map((a) => v[o + a + ((k >> a) & 1) * 3]));
    } else if (vol.kind === 'sphere') {
      pushSphere(out, [v[o], v[o + 1], v[o + 2]], v[o + 3]);
    } else {  // obb: centre, half extents, rotation row by row (columns are the axes)
      pushBox(out, (k) => [0, 1, 2].map((row) => {
        let x = v[o + row];
        for (let a = 0; a < 3; a++) {
          x += v[o + 6 + 3 * row + a] * (((k >> a) & 1) ? 1 : -1) * v[o + 3 + a];
        }
        return x;
      }));
    }
    drawn += 1;
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(out, 3));
  return [geometry, drawn];
}

function fail(err) {
  root.dataset.hitboxError = String(err && err.message || err);
  hud.innerHTML = '<span class="error">cannot draw: ' + root.dataset.hitboxError +
    '</span>';
  console.error(err);
}

try {
  const data = JSON.parse(document.getElementById('hitbox-data').textContent);
  const renderer = new THREE.WebGLRenderer({
    antialias: true, preserveDrawingBuffer: true,
  });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(window.innerWidth, window.innerHeight);
  renderer.setClearColor(0xf4f5f7);
  document.body.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x666677, 2.0));
  const aspect = window.innerWidth / window.innerHeight;
  const camera = new THREE.PerspectiveCamera(45, aspect, 0.01, 1000);
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(1, 2, 3);
  camera.add(sun);
  scene.add(camera);

  const layers = { meshes: [], volumes: [], highlights: [] };
  const seeThrough = data.opacity < 1;
  let objects = 0;
  const rows = [];
  for (const m of data.meshes) {
    const group = new THREE.Group();
    group.matrixAutoUpdate = false;
    group.matrix.set(...m.pose);
    group.matrixWorldNeedsUpdate = true;
    const positions = decode(m.positions, Float32Array);
    const indices = decode(m.indices, Uint32Array);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    geometry.setIndex(new THREE.BufferAttribute(indices, 1));
    const colour = new THREE.Color(m.colour);
    const material = new THREE.MeshStandardMaterial({
      color: colour, flatShading: true, side: THREE.DoubleSide, roughness: 0.7,
      transparent: seeThrough, opacity: data.opacity, depthWrite: !seeThrough,
      polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1,
    });
    const mesh = new THREE.Mesh(geometry, material);
    group.add(mesh); layers.meshes.push(mesh); objects += 1;
    let note = '';
    if (m.highlight) {
      const faces = decode(m.highlight, Uint32Array);
      const picked = new Uint32Array(faces.length * 3);
      faces.forEach((f, i) => picked.set(indices.subarray(3 * f, 3 * f + 3), 3 * i));
      const hg = new THREE.BufferGeometry();
      hg.setAttribute('position', geometry.getAttribute('position'));
      hg.setIndex(new THREE.BufferAttribute(picked, 1));
      const hm = new THREE.Mesh(hg, new THREE.MeshBasicMaterial({
        color: new THREE.Color('@HIGHLIGHT@'), side: THREE.DoubleSide, depthTest: false,
        transparent: true,  // drawn in the last pass, over the see-through meshes
      }));
      hm.renderOrder = 2;
      group.add(hm); layers.highlights.push(hm); objects += 1;
      note += `, <b>${faces.length}</b> colliding`;
    }
    if (m.volumes) {
      const [vg, drawn] = volumeLines(m.volumes);
      const lines = new THREE.LineSegments(vg, new THREE.LineBasicMaterial({
        color: colour.clone().multiplyScalar(0.55), transparent: true, opacity: 0.9,
      }));
      lines.renderOrder = 1;
      group.add(lines); layers.volumes.push(lines); objects += drawn;
      note += `, ${drawn} ${m.treeKind} volumes`;
    }
    scene.add(group);
    rows.push(`<div><span class="swatch" style="background:${m.colour}"></span>` +
              `${m.name}: ${m.faces} triangles${note}</div>`);
  }

  scene.updateMatrixWorld(true);
  const box = new THREE.Box3();
  for (const mesh of layers.meshes) box.expandByObject(mesh);
  const centre = box.isEmpty() ? new THREE.Vector3() : box.getCenter(new THREE.Vector3());
  const size = box.isEmpty() ? 2 : box.getSize(new THREE.Vector3()).length();
  const radius = Math.max(size / 2, 1e-6);
  const eye = new THREE.Vector3(1.0, 0.8, 1.3).normalize().multiplyScalar(radius * 2.3);
  camera.position.copy(centre).add(eye);
  camera.near = radius / 100; camera.far = radius * 100;
  camera.updateProjectionMatrix();

  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(centre);
  controls.update();
  const render = () => renderer.render(scene, camera);
  controls.addEventListener('change', render);
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    render();
  });

  const names = [['meshes', 'meshes'], ['volumes', 'volumes'], ['highlights', 'hits']];
  const toggles = names.filter(([key]) => layers[key].length)
    .map(([key, label]) =>
      `<label><input type="checkbox" data-layer="${key}" checked> ${label}</label>`);
  const depth = data.depth === null ? '' : `<div>volumes at depth ${data.depth}</div>`;
  hud.innerHTML = rows.join('') + depth + `<div>${toggles.join('')}</div>` +
    '<div style="color:#666">drag: orbit, scroll: zoom, right-drag: pan</div>';
  for (const input of hud.querySelectorAll('input[data-layer]')) {
    input.addEventListener('change', () => {
      for (const obj of layers[input.dataset.layer]) obj.visible = input.checked;
      render();
    });
  }

  render();
  window.hitboxObjectCount = objects;
  window.hitboxReady = true;
  root.dataset.hitboxObjects = String(objects);
  root.dataset.hitboxReady = 'true';
} catch (err) {
  fail(err);
}
""".replace("@HIGHLIGHT@", HIGHLIGHT)
