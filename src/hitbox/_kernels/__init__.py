"""The compiled kernels (numba ``@njit(cache=True)`` over flat arrays).

numba keys a cached kernel by its own file's time stamp and size only, but these
kernels inline and call kernels of other files: after an edit to one file (a
checkout's ``git pull``, an editable install), a kernel of another file would load
from the cache with the old code inside. So the first import compares a digest of
every kernel file with the one the cache folder was written under, and where they
differ empties that folder of cached kernels: numba compiles them again, once.
"""

import hashlib
from pathlib import Path

#: The cache folder's record of the kernel files it was compiled from.
DIGEST_FILE = "hitbox-kernels.digest"


def _cache_folders(here):
    """Where numba caches this package's kernels: the in-tree ``__pycache__``, and the
    folder under ``NUMBA_CACHE_DIR`` when one is set."""
    folders = [here / "__pycache__"]
    from numba.core import caching, config

    if config.CACHE_DIR:
        sub = caching._CacheLocator.get_suitable_cache_subpath(str(here / "__init__.py"))
        folders.append(Path(config.CACHE_DIR) / sub)
    return folders


def _refresh_cache():
    here = Path(__file__).parent
    digest = hashlib.sha1()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    stamp = digest.hexdigest()
    for folder in _cache_folders(here):
        mark = folder / DIGEST_FILE
        try:
            if mark.read_text() == stamp:
                continue
        except OSError:
            pass
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for cached in folder.glob("*.nb[ic]"):
                cached.unlink(missing_ok=True)
            mark.write_text(stamp)
        except OSError:  # a read-only install: numba caches elsewhere, or not at all
            pass


_refresh_cache()
