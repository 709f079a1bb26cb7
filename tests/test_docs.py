"""The API reference: it builds (MkDocs, strict), and every cross-reference written in a
docstring (``:func:`name```, ``:class:``, ``:meth:``, ``:mod:``, ``:data:``, ``:attr:``)
names something that exists."""

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src" / "hitbox"
ROLE = re.compile(r":(?:func|class|meth|mod|data|attr):`~?([A-Za-z_][\w.]*)`")


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        yield name, path


def _resolve(module, dotted):
    """Whether ``dotted`` names an object from ``module``'s namespace, the package's, or
    as a full import path."""
    candidates = [(module, dotted), ("hitbox", dotted)]
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        candidates.append((".".join(parts[:i]), ".".join(parts[i:])))
    for mod_name, attr in candidates:
        try:
            obj = importlib.import_module(mod_name)
        except ImportError:
            continue
        for part in filter(None, attr.split(".")):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return True
    return False


def _docstrings(tree):
    """(enclosing class name or None, docstring) of the module, its classes, functions
    and methods."""
    yield None, ast.get_docstring(tree) or ""
    methods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield node.name, ast.get_docstring(node) or ""
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    methods.add(id(item))
                    yield node.name, ast.get_docstring(item) or ""
        elif isinstance(node, ast.FunctionDef) and id(node) not in methods:
            yield None, ast.get_docstring(node) or ""


def test_every_docstring_reference_resolves():
    broken = []
    for module, path in _modules():
        for cls, doc in _docstrings(ast.parse(path.read_text())):
            for ref in ROLE.findall(doc):
                scoped = f"{cls}.{ref}" if cls else ref
                if not (_resolve(module, scoped) or _resolve(module, ref)):
                    broken.append(f"{path.relative_to(ROOT)}: {ref}")
    assert not broken, "\n".join(sorted(set(broken)))


MKDOCS = Path(sys.executable).with_name("mkdocs")


@pytest.mark.skipif(not MKDOCS.exists(), reason="mkdocs is in the docs and test extras")
def test_the_api_reference_builds_strictly(tmp_path):
    mkdocs = MKDOCS
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "api" / "mesh" / "index.html").exists()
