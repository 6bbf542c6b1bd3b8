"""Running a check where a stop cannot be swallowed: in a forked child process the caller can kill.

The in-process time limit (``time_limit``) raises an exception inside the student's code, and
a bare ``except:`` in a student's loop catches it: the loop goes on, and ``check`` would never
come back.  So on Linux the whole check runs in a child made with ``os.fork``, which shares
everything the student defined (a class typed into a notebook cell included, which another
interpreter could not import).  The child tells its parent when each call of the student's
code starts and ends (``Heartbeat``); the parent waits, and when a call runs well past the
limit it kills the child (SIGKILL cannot be caught) and reports the call that ran out of time,
with the lines found so far.  The child still runs the in-process limit, so an ordinary endless
loop is stopped there, the child reports it itself, and only a swallowed stop needs the kill.

Elsewhere (Windows, macOS, where fork is unsafe with the system's frameworks, or the browser's
Python) ``available()`` is False and the check runs in the process, under the in-process limit.

>>> available() in (True, False)
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe
from typing import Any

from .references import Point
from .result import CheckLine

# Longest that our own code may run between two calls of the student's code (references,
# bookkeeping) before the child counts as stuck: far beyond any check, short of a hang.
IDLE_LIMIT = 60.0


def available() -> bool:
    """Whether checks run in a child process here: Linux's fork."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def hard_limit(seconds: float) -> float:
    """When the parent kills the child: the in-process stop has had its chance (at ``seconds``),
    with a margin for a call that is just ending, and within twice the limit."""
    return seconds * 1.5 + min(0.25, seconds / 2)


@dataclass
class Stopped:
    """The child was killed in the middle of a call: which one, where, and the lines before it."""

    what: str
    pt: Point
    ps: tuple[float, ...]
    lines: list[CheckLine] = field(default_factory=list)


@dataclass
class Failed:
    """The check raised in the child (the student's code is broken): its traceback, as text."""

    traceback: str


class Heartbeat:
    """In the child: tells the parent each call's start (with the lines found so far, when they
    changed) and end, so that the parent knows what runs and what to report if it must kill."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lines: list[CheckLine] = []
        self.sent = -1  # how many lines the parent has

    def started(self, what: str, pt: Point, ps: tuple[float, ...]) -> None:
        lines = list(self.lines) if len(self.lines) != self.sent else None
        self.sent = len(self.lines)
        self.conn.send(("call", what, pt, ps, lines))

    def ended(self) -> None:
        self.conn.send(("idle",))


def run(job: Callable[[Heartbeat], Any], seconds: float) -> Any:
    """``job(heartbeat)``'s answer, computed in a forked child; a ``Stopped`` when a call ran past
    ``hard_limit(seconds)``, a ``Failed`` when the job raised.  The child never outlives this."""
    reader, writer = Pipe(duplex=False)
    _flush()  # what is buffered is printed once, not once more by the child
    with warnings.catch_warnings():  # Python 3.12 warns about fork in a process with threads: the
        warnings.simplefilter("ignore", DeprecationWarning)  # child runs only this check, then exits
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: coverage does not follow it
        reader.close()
        _child(job, writer)
    writer.close()
    try:
        return _wait(reader, hard_limit(seconds))
    finally:
        reader.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # gone already when it answered; never left running
        os.waitpid(pid, 0)


def _child(job: Callable[[Heartbeat], Any], conn: Connection) -> None:  # pragma: no cover - in the child
    """Run the job, send its answer or its traceback, and exit without returning to the caller's
    code (``os._exit``: no atexit handlers, no test runner carrying on in a copy of itself)."""
    code = 0
    try:
        try:
            conn.send(("done", job(Heartbeat(conn))))
        except BaseException as exc:
            conn.send(("raised", "".join(traceback.format_exception(exc))))
        _flush()
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _wait(conn: Connection, hard: float) -> Any:
    """Read the child's messages until its answer, or until a call (or our own code between
    calls) runs past its deadline."""
    current: tuple[str, Point, tuple[float, ...]] = ("forward", (), ())
    lines: list[CheckLine] = []
    deadline, in_call = time.monotonic() + IDLE_LIMIT, False
    while True:
        if not conn.poll(max(0.0, deadline - time.monotonic())):
            if in_call:
                return Stopped(*current, lines)
            raise RuntimeError(
                f"check: the process running the check gave no sign for {IDLE_LIMIT:g} s between two "
                "calls of your code; run it again, or pass timeout=None to run it in this process"
            )
        try:
            message = conn.recv()
        except EOFError:
            raise RuntimeError(
                "check: the process running your op ended without an answer (did your code call "
                "os._exit, or crash Python?); pass timeout=None to run it in this process and see"
            ) from None
        kind = message[0]
        if kind == "call":
            current, in_call = message[1:4], True
            lines = message[4] if message[4] is not None else lines
            deadline = time.monotonic() + hard
        elif kind == "idle":
            deadline, in_call = time.monotonic() + IDLE_LIMIT, False
        elif kind == "done":
            return message[1]
        else:
            return Failed(message[1])


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
