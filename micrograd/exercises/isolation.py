"""Running a check where a stop cannot be swallowed: in a forked child process the caller can kill.

The in-process time limit (``time_limit``) raises an exception inside the student's code, and
a bare ``except:`` in a student's loop catches it: the loop goes on, and ``check`` would never
come back.  So on Linux the whole check runs in a child made with ``os.fork``, which shares
everything the student defined (a class typed into a notebook cell included, which another
interpreter could not import).  The child marks when each call of the student's code starts
and ends, in memory shared with its parent (``Heartbeat``).  The parent waits, and when a call
runs well past the limit it kills the child (SIGKILL cannot be caught) and reports the call
that ran out of time, with the lines found so far.  The child still runs the in-process limit,
so an ordinary endless loop is stopped there and reported by the child itself; only a
swallowed stop needs the kill.

Elsewhere (Windows, macOS, where fork is unsafe with the system's frameworks, or the browser's
Python) ``available()`` is False and the check runs in the process, under the in-process limit.

>>> available() in (True, False)
True
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import struct
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .channel import ENDED, LATE, MalformedError, Receiver, Sender
from .references import Point
from .result import COLOURS, CheckLine

if TYPE_CHECKING:  # loaded by run() only: the browser's Python may lack it, and never forks
    import mmap

# Longest that our own code may run between two calls of the student's code (references,
# bookkeeping) before the child counts as stuck: far beyond any check, short of a hang.
IDLE_LIMIT = 60.0
POLL = 0.05  # how often the parent looks at what the child runs, in seconds


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

    what: str  # "total" when the whole check ran past its end
    pt: Point
    ps: tuple[float, ...]
    lines: list[CheckLine] = field(default_factory=list)


@dataclass
class Garbled:
    """The child sent what is not a message of the check (the student's code wrote into the pipe)."""

    reason: str


@dataclass
class Failed:
    """The check raised in the child (the student's code is broken): its traceback, as text."""

    traceback: str


# Where the child says what it runs, in memory shared with the parent (an anonymous mmap made
# before the fork): a message per call through the pipe would cost more than the check itself,
# and the parent reads this only when it wakes.  seq is odd while a call runs; since is the
# monotonic time (one clock for both processes) of the last start or end.
_HEAD = struct.Struct("<qdqqq")  # seq, since, what (an index into the names sent), len(pt), len(ps)
_SEQ = struct.Struct("<q")
_MOST = 32  # numbers of a point kept for the message (a point of more inputs is cut there)


class Heartbeat:
    """In the child: marks each call's start (what, where) and end in the shared memory, and
    sends the lines found so far through the pipe when they change, so that the parent knows
    what runs and what to report if it must kill."""

    def __init__(self, conn: Sender, shared: mmap.mmap) -> None:
        self.conn, self.shared = conn, shared
        self.lines: list[CheckLine] = []
        self.sent = 0  # how many lines the parent has
        self.seq = 0
        self.whats: list[str] = []  # the names of what runs ("forward", "backward: seed"), as sent

    def started(self, what: str, pt: Point, ps: tuple[float, ...]) -> None:
        if len(self.lines) != self.sent:
            self.sent = len(self.lines)
            self.conn.send(["lines", as_data(self.lines)])
        if what not in self.whats:  # a new name goes through the pipe once; then its index
            self.whats.append(what)
            self.conn.send(["what", what])
        pt, ps = pt[:_MOST], ps[: _MOST - min(len(pt), _MOST)]
        struct.pack_into(f"<{len(pt) + len(ps)}d", self.shared, _HEAD.size, *pt, *ps)
        self._mark(self.whats.index(what), len(pt), len(ps))

    def ended(self) -> None:
        self._mark(0, 0, 0)

    def _mark(self, what: int, n_pt: int, n_ps: int) -> None:
        # The fields first, under the old seq, then the new seq on its own (one aligned 8-byte
        # write): a read between the two sees the new time with the old state, never a new
        # state with an old time (which made a call look stuck since the previous mark).
        _HEAD.pack_into(self.shared, 0, self.seq, time.monotonic(), what, n_pt, n_ps)
        self.seq += 1
        _SEQ.pack_into(self.shared, 0, self.seq)


def _read(shared: mmap.mmap, whats: list[str]) -> tuple[bool, float, tuple[str, Point, tuple[float, ...]]]:
    """What the child runs: whether in a call, since when, and which call (by its name, from
    ``whats``, the names the child sent) at which point."""
    for _ in range(1000):  # read again if the child wrote in between (a torn read)
        seq, since, what, n_pt, n_ps = _HEAD.unpack_from(shared, 0)
        n_pt = min(max(n_pt, 0), _MOST)  # (the child's numbers, bounded: the student's code runs there)
        n_ps = min(max(n_ps, 0), _MOST - n_pt)
        numbers = struct.unpack_from(f"<{n_pt + n_ps}d", shared, _HEAD.size)
        if _HEAD.unpack_from(shared, 0)[0] == seq:
            name = whats[what] if 0 <= what < len(whats) else "a call"  # (its name not read yet)
            return seq % 2 == 1, since, (name, numbers[:n_pt], numbers[n_pt:])
    return True, -math.inf, ("a call", (), ())  # a child that never stops writing: stuck


def run(
    job: Callable[[Heartbeat], Any],
    seconds: float,
    deadline: float = math.inf,
    on_lines: Callable[[list[CheckLine]], None] | None = None,
) -> Any:
    """``job(heartbeat)``'s answer, computed in a forked child; a ``Stopped`` when a call ran past
    ``hard_limit(seconds)`` (or the whole past ``deadline``), a ``Failed`` when the job raised.
    ``on_lines`` is told the lines found so far each time the child sends them.  The child
    never outlives this."""
    import mmap

    reader, writer = os.pipe()
    shared = mmap.mmap(-1, _HEAD.size + 8 * _MOST)  # anonymous and shared: the child writes, we read
    _HEAD.pack_into(shared, 0, 0, time.monotonic(), 0, 0, 0)
    flush()  # what is buffered is printed once, not once more by the child
    with warnings.catch_warnings():  # Python 3.12 warns about fork in a process with threads: the
        warnings.simplefilter("ignore", DeprecationWarning)  # child runs only this check, then exits
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: coverage does not follow it
        os.close(reader)
        _child(job, Sender(writer), shared)
    os.close(writer)
    try:
        return _wait(Receiver(reader), shared, hard_limit(seconds), deadline, on_lines)
    finally:
        os.close(reader)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # gone already when it answered; never left running
        os.waitpid(pid, 0)
        shared.close()


def _child(job: Callable[[Heartbeat], Any], conn: Sender, shared: mmap.mmap) -> None:  # pragma: no cover
    """Run the job, send its answer or its traceback, and exit without returning to the caller's
    code (``os._exit``: no atexit handlers, no test runner carrying on in a copy of itself)."""
    code = 0
    try:
        try:
            conn.send(["done", as_data(job(Heartbeat(conn, shared)))])
        except BaseException as exc:
            conn.send(["raised", "".join(traceback.format_exception(exc))])
        flush()
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _wait(
    conn: Receiver,
    shared: mmap.mmap,
    hard: float,
    deadline: float,
    on_lines: Callable[[list[CheckLine]], None] | None,
) -> Any:
    """Read the child's messages until its answer; between them, look at what it runs, and stop
    it when a call (or our own code between two calls, or the whole) runs past its deadline."""
    lines: list[CheckLine] = []
    whats: list[str] = []
    while True:
        if time.monotonic() > deadline + hard:  # (the child stops itself at the deadline)
            _, _, (_, pt, ps) = _read(shared, whats)
            return Stopped("total", pt, ps, lines)
        try:
            kind, payload = message(conn.next(time.monotonic() + POLL))
        except MalformedError as bad:
            return Garbled(str(bad))
        if kind == "ended":
            raise RuntimeError(
                "check: the process running your op ended without an answer (did your code call "
                "os._exit, or crash Python?); pass timeout=None to run it in this process and see"
            )
        if kind == "lines":
            lines = payload
            if on_lines is not None:
                on_lines(lines)
        elif kind == "what":
            whats.append(payload)
        elif kind in ("done", "raised"):
            return payload if kind == "done" else Failed(payload)
        elif stuck := _stuck(shared, whats, hard):
            return Stopped(*stuck, lines)


def _stuck(shared: mmap.mmap, whats: list[str], hard: float) -> tuple[str, Point, tuple[float, ...]] | None:
    """The call the child runs past ``hard`` seconds, or None; RuntimeError when our own code
    between two calls gives no sign for IDLE_LIMIT."""
    in_call, since, (what, pt, ps) = _read(shared, whats)
    running = time.monotonic() - since
    if in_call and running > hard:
        return what, pt, ps
    if not in_call and running > IDLE_LIMIT:
        raise RuntimeError(
            f"check: the process running the check gave no sign for {IDLE_LIMIT:g} s between two "
            "calls of your code; run it again, or pass timeout=None to run it in this process"
        )
    return None


def as_data(lines: list[CheckLine]) -> list[list[str]]:
    return [[line.status, line.check, line.message, line.hint] for line in lines]


def message(got: Any) -> tuple[str, Any]:
    """The child's message as (kind, payload), checked: its lines as CheckLines; ("late", None)
    when none came in time, ("ended", None) when the child is gone; MalformedError otherwise."""
    if got is LATE or got is ENDED:
        return str(got), None
    if type(got) is not list or len(got) != 2 or got[0] not in ("lines", "what", "done", "raised"):
        raise MalformedError("a message that is not one of the check's")
    kind, payload = got
    if kind in ("what", "raised"):
        if type(payload) is not str:
            raise MalformedError(f"a {kind} that is not a text")
        return kind, payload
    if type(payload) is not list or not all(
        type(row) is list and len(row) == 4 and all(type(t) is str for t in row) and row[0] in COLOURS
        for row in payload
    ):
        raise MalformedError("lines that are not the check's lines")
    return kind, [CheckLine(*row) for row in payload]


def flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
