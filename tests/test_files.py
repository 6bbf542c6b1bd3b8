"""Writes never replace what is not a regular file (issue 34, item 3): ``save``, ``render``,
``explore(path=)``, ``Explorer.save`` and the recorder's ``write_html`` all go through
``micrograd.files.write_atomically``, which refuses a FIFO, a device node, a directory or a socket
and writes through a symlink to a regular file."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from micrograd import Value, explore
from micrograd.files import NotARegularFileError, write_atomically
from micrograd.viz.recorder import TrainingRecorder
from nn import MLP


def _graph() -> Value:
    a = Value(2.0, label="a")
    return a * a + 1


def _save(path: Path) -> None:
    MLP(2, [3, 1], seed=0).save(path)


def _render(path: Path) -> None:
    from micrograd import render

    render(_graph(), path, format="svg")


def _explore(path: Path) -> None:
    explore(_graph(), path, layout="builtin")


def _explorer_save(path: Path) -> None:
    explore(_graph(), layout="builtin").save(path)


def _write_html(path: Path) -> None:
    model = MLP(2, [2, 1], seed=0)
    rec = TrainingRecorder(model)
    rec.record(Value(1.0), 0.5)
    rec.write_html(path)


def _raw(path: Path) -> None:
    write_atomically(path, b"new", "test")


WRITERS: dict[str, tuple[Callable[[Path], None], str]] = {
    "save": (_save, "m.json"),
    "render": (_render, "g.svg"),
    "explore": (_explore, "p.html"),
    "Explorer.save": (_explorer_save, "p.html"),
    "write_html": (_write_html, "r.html"),
    "write_atomically": (_raw, "f.bin"),
}


def _fifo(path: Path) -> Iterator[Path]:
    os.mkfifo(path)
    yield path


def _device(path: Path) -> Iterator[Path]:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a copy of /dev/null's node
    except PermissionError:
        pytest.skip("making a device node needs root")
    yield path


def _directory(path: Path) -> Iterator[Path]:
    path.mkdir()
    yield path


def _socket(path: Path) -> Iterator[Path]:
    if len(os.fsencode(path)) > 100:  # AF_UNIX paths are short (108 bytes on Linux)
        pytest.skip("the temporary folder's path is too long for a socket")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(os.fspath(path))
        yield path


def _fifo_behind_a_link(path: Path) -> Iterator[Path]:
    real = path.with_name("real-" + path.name)
    os.mkfifo(real)
    path.symlink_to(real)
    yield path


MAKERS = {
    "FIFO": (_fifo, stat.S_ISFIFO, "a FIFO"),
    "device": (_device, stat.S_ISCHR, "a character device"),
    "directory": (_directory, stat.S_ISDIR, "a directory"),
    "socket": (_socket, stat.S_ISSOCK, "a socket"),
    "link to a FIFO": (_fifo_behind_a_link, stat.S_ISFIFO, "a FIFO"),
}


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize("writer", WRITERS)
def test_a_write_refuses_what_is_not_a_regular_file_and_leaves_it(
    tmp_path: Path, writer: str, kind: str
) -> None:
    write, name = WRITERS[writer]
    make, is_kind, words = MAKERS[kind]
    for path in make(tmp_path / name):
        with pytest.raises(NotARegularFileError) as info:
            write(path)
        message = str(info.value)
        assert repr(str(path)) in message and words in message and "regular file" in message
        assert "give the path of a regular file" in message  # what to do
        assert is_kind(os.stat(path).st_mode)  # left as it was
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("writer", WRITERS)
def test_a_write_goes_through_a_symlink_to_a_regular_file(tmp_path: Path, writer: str) -> None:
    write, name = WRITERS[writer]
    real = tmp_path / "store" / name
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / name
    link.symlink_to(real)
    write(link)
    assert link.is_symlink() and link.resolve() == real  # the link is kept...
    assert real.read_bytes() not in (b"old", b"")  # ...and its target replaced


def test_the_error_is_an_oserror_naming_the_path(tmp_path: Path) -> None:
    fifo = tmp_path / "out.bin"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as info:
        write_atomically(fifo, b"x", "save")
    assert isinstance(info.value, NotARegularFileError) and info.value.filename == str(fifo)
    assert str(info.value.strerror).startswith("save: ")
