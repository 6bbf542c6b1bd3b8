"""Writing a file whole or not at all: ``write_atomically``, for ``render``, ``save`` and the HTML pages.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
>>> write_atomically(path, b"hello", "example")
>>> open(path, "rb").read()
b'hello'
"""

from __future__ import annotations

import contextlib
import os
import secrets


def write_atomically(path: str | os.PathLike[str], data: bytes, who: str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename:
    ``path`` is left as it was or holds all of ``data``, never part of it.  A symlink is written
    through (its target gets the new contents); a replaced file keeps its permissions, a new one
    gets the usual ``0o666`` less the umask.  On failure the temporary file is removed and the
    original error propagates; an error creating the file names ``path``, not the temporary
    file (``who`` starts the message: "render", "save", ...).  The directory must exist.
    """
    given = os.fspath(path)
    target = os.path.realpath(given)
    try:
        mode: int | None = os.stat(target).st_mode & 0o7777
    except OSError:
        mode = None
    tmp = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{secrets.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(tmp, flags, 0o666)
    except OSError as exc:
        raise OSError(exc.errno, f"{who}: cannot write {given!r}: {exc.strerror}", given) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the rename makes them the file
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(os.path.dirname(target))


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable, where the platform can open a directory."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
