"""A grader's forked child: the learner's code runs there, and its only way back is a pipe of
JSON lines (``channel``), read by the parent with deadlines and bounds.  The parent may also
send requests down a second pipe (``check`` asks for each number it needs, one at a time).

Shared by ``check_engine`` (``engine.run``) and ``check`` (``op_calls``).  The child never
outlives the ``Forked`` that made it: ``close()`` kills it (SIGKILL cannot be caught).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from . import isolation
from .channel import Receiver, Sender

__all__ = ["Forked"]

_fdopen, _loads = os.fdopen, json.loads


class Forked:
    """``serve(requests)``'s messages, computed in a forked child and read here one at a time
    (``next``); ``send`` puts a request where the child's ``requests`` iterator reads it."""

    def __init__(self, serve: Callable[[Iterator[Any]], Iterator[Any]]) -> None:
        reader, writer = os.pipe()
        asks, asked = os.pipe()
        isolation.flush()  # what is buffered is printed once, not once more by the child
        with warnings.catch_warnings():  # (Python 3.12 warns about fork in a process with threads)
            warnings.simplefilter("ignore", DeprecationWarning)
            self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child: coverage does not follow it
            os.close(reader)
            os.close(asked)
            run_child(serve(requests(asks)), writer)
        os.close(writer)
        os.close(asks)
        self.fd, self.receiver, self.asked = reader, Receiver(reader), Sender(asked)

    def next(self, until: float) -> Any:
        return self.receiver.next(until)

    def send(self, request: Any) -> None:
        self.asked.send(request)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):  # gone already when it answered
            os.kill(self.pid, signal.SIGKILL)  # never left running
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        os.close(self.asked.fd)


def requests(fd: int) -> Iterator[Any]:  # pragma: no cover - in the child
    """The parent's requests, one JSON line each (the parent is trusted: it wrote them)."""
    with _fdopen(fd, "rb") as stream:
        for line in stream:
            yield _loads(line)


def run_child(messages: Iterator[Any], fd: int) -> None:  # pragma: no cover - in the child
    """Send every message from a new thread, then exit without returning to the caller's code (no
    atexit handlers, no test runner carrying on in a copy of itself).  The thread starts on an
    empty stack: the learner's code has the same recursion depth to spare wherever the grader
    was called from (a test runner's deep stack, a notebook's shallow one)."""
    done = []

    def send_all() -> None:
        sender = Sender(fd)
        for message in messages:
            sender.send(message)
        isolation.flush()
        done.append(True)

    try:
        thread = threading.Thread(target=send_all, daemon=True)
        thread.start()
        thread.join()
    finally:
        os._exit(0 if done else 1)
