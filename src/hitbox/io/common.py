"""What every reader of hitbox.io shares: :class:`FileError`, the one-line error that
names the file, and the checks before a file is opened."""

import os
from pathlib import Path

__all__ = ["FileError"]


class FileError(ValueError):
    """A file that cannot be used: missing, unreadable, corrupt, empty or malformed.

    The message is one line and names the file; the command line prints it as it is.
    """


def _existing(path):
    """The path as a Path, checked to be an existing, readable, regular file."""
    try:
        path = Path(os.fspath(path))
    except TypeError:
        raise FileError(f"expected a file path, got {type(path).__name__}") from None
    if not path.exists():
        raise FileError(f"{path}: no such file")
    if path.is_dir():
        raise FileError(f"{path}: is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise FileError(f"{path}: permission denied")
    return path


def _read_text(path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileError(f"{path}: cannot read as text ({_one_line(exc)})") from None


def _one_line(exc):
    """The exception's message on one line of at most 200 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
