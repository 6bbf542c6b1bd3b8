"""Graphviz's ``dot`` ends with the Python process that started it, however that process ends
(issue 47): killed with SIGKILL or SIGTERM while ``dot`` lays out a graph for minutes, it leaves
no ``dot`` (nor anything ``dot`` started) running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from micrograd import Value
from micrograd.viz import render
from tests.graphviz_support import needs_dot

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads /proc to see which processes run"
)

# A child that lays out, with no time limit, a graph dot takes over 40 minutes on (test_explore's).
LAYOUT_FOR_AN_HOUR = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from micrograd import Value
from micrograd.viz import explore
x = Value(0.9)
v = x
for _ in range(99):
    v = v * x + 0.5
print("ready", flush=True)
explore(v, layout="graphviz", layout_timeout=3600)
"""


def stat(pid: int) -> tuple[str, str, int]:
    """``(name, state, parent)`` of process ``pid``; ('', 'gone', 0) once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return "", "gone", 0
    name, rest = text[text.index("(") + 1 : text.rindex(")")], text.rsplit(")", 1)[1].split()
    return name, rest[0], int(rest[1])


def children(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``: their names."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            name, _, parent = stat(int(entry))
            if parent == pid:
                found[int(entry)] = name
    return found


def running(pid: int) -> bool:
    return stat(pid)[1] not in ("gone", "Z")  # (a zombie has ended: init reaps it a moment later)


def wait_for(what: str, test: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not test() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.02)
    assert test(), what  # type: ignore[operator]


def end(pids: list[int]) -> None:
    """(A failed test) kill what it left running, so that it does not run for an hour."""
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def start_child(tmp_path: Path, code: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    script = tmp_path / "child.py"
    script.write_text(code)
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    return child


def kill(child: subprocess.Popen[bytes], sig: int) -> None:
    child.send_signal(sig)
    child.wait()
    assert child.stdout is not None
    child.stdout.close()


@needs_dot
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_dot_ends_with_the_process_that_started_it(tmp_path: Path, sig: int) -> None:
    child = start_child(tmp_path, LAYOUT_FOR_AN_HOUR)
    try:
        # (a short `dot` may come and go first, a version check: the layout's is the one still running)
        def laying_out() -> list[int]:
            time.sleep(0.3)
            assert child.poll() is None, f"the child ended ({child.returncode}) before dot laid out"
            return [pid for pid, name in children(child.pid).items() if name == "dot" and running(pid)]

        wait_for("dot laying out", laying_out, 60)
        (dot,) = laying_out()
    finally:
        kill(child, sig)
    start = time.monotonic()
    try:
        wait_for("dot still runs 2 s after its parent was killed", lambda: not running(dot), 2)
    finally:
        end([dot])
    print(f"dot gone {time.monotonic() - start:.3f} s after {signal.Signals(sig).name}")


def test_what_dot_started_ends_too(tmp_path: Path) -> None:
    """A ``dot`` (here a wrapper script) that starts a process of its own: the whole group ends."""
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {tmp_path}/inner\necho $$ > {tmp_path}/dot\nwait\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    code = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom micrograd import Value\n"
    code += "from micrograd.viz import render\nprint('ready', flush=True)\n"
    code += f"render(Value(1.0) * 2, {str(tmp_path / 'g.svg')!r}, timeout=None)\n"
    child = start_child(tmp_path, code, env)
    try:
        wait_for(
            "the wrapper started", lambda: (tmp_path / "dot").is_file() and (tmp_path / "inner").is_file(), 20
        )
        time.sleep(0.1)
        pids = [int((tmp_path / name).read_text()) for name in ("dot", "inner")]
        assert all(running(pid) for pid in pids)
    finally:
        kill(child, signal.SIGKILL)
    try:
        wait_for("dot's group still runs", lambda: not any(running(pid) for pid in pids), 2)
    finally:
        end(pids)


@needs_dot
def test_a_finished_dot_leaves_no_watchdog_behind(tmp_path: Path) -> None:
    before = set(children(os.getpid()))
    render(Value(2.0) * 3, tmp_path / "g.svg")
    assert set(children(os.getpid())) - before == set()
