"""Writing a file whole or not at all: ``write_atomically``, for ``render``, ``save`` and the HTML pages.

Only a regular file is ever replaced: a FIFO, a device node, a directory or a socket at the
path (or at the end of a symlink there) is refused with ``NotARegularFileError``, because
the rename would swap it for a regular file (a copy of ``/dev/null``'s node would become a JSON
file).  A symlink to a regular file is written through: the link stays, its target is replaced.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
>>> write_atomically(path, b"hello", "example")
>>> open(path, "rb").read()
b'hello'
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

__all__ = ["NotARegularFileError", "write_atomically"]

#: What each kind of file that is not a regular one is called in an error message.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotARegularFileError(OSError):
    """The path to write names something other than a regular file (a FIFO, a device node, a
    directory, a socket); it is left as it is.  ``filename`` is the path as given."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _existing_mode(given: str, target: str, who: str) -> int | None:
    """The permission bits of the regular file at ``target`` (``given`` resolved), None if there
    is none yet; anything else there is refused, naming ``given`` and what to do."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:  # e.g. a symlink loop: nothing a rename should replace
        raise OSError(exc.errno, f"{who}: cannot write {given!r}: {exc.strerror}", given) from None
    if stat.S_ISREG(info.st_mode):
        return info.st_mode & 0o7777
    link = f" (a link to {target!r})" if os.path.islink(given) else ""
    raise NotARegularFileError(
        errno.EISDIR if stat.S_ISDIR(info.st_mode) else errno.EINVAL,
        f"{who}: {given!r}{link} is {_kind(info.st_mode)}, not a regular file, and writing would replace it; "
        "give the path of a regular file (a new name, or an existing file to overwrite)",
        given,
    )


def write_atomically(path: str | os.PathLike[str], data: bytes, who: str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename:
    ``path`` is left as it was or holds all of ``data``, never part of it.  A symlink is written
    through (its target gets the new contents); a replaced file keeps its permissions, a new one
    gets the usual ``0o666`` less the umask.  Anything at ``path`` that is not a regular file (a
    FIFO, a device node, a directory, a socket) raises ``NotARegularFileError`` and is left as it
    is.  On failure the temporary file is removed and the original error propagates; an error
    creating the file names ``path``, not the temporary file (``who`` starts the message:
    "render", "save", ...).  The directory must exist.
    """
    given = os.fspath(path)
    target = os.path.realpath(given)
    mode = _existing_mode(given, target, who)
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
