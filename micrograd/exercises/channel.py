"""The one way a grader's child process talks to its parent: lines of JSON through a pipe.

The child runs the learner's code, so anything it sends may be forged, cut short or endless.
The parent reads with a deadline, a bound on each line and on the whole, and parses JSON only
(never a pickle, which could run code in the parent); what it reads is checked by the caller.

>>> import os
>>> r, w = os.pipe()
>>> Sender(w).send({"k": 0, "data": [1.5, "None"]})
>>> os.close(w)
>>> receiver = Receiver(r)
>>> receiver.next(time.monotonic() + 5)
{'k': 0, 'data': [1.5, 'None']}
>>> receiver.next(time.monotonic() + 5) is ENDED
True
>>> os.close(r)
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

__all__ = ["ENDED", "LATE", "MalformedError", "Receiver", "Sender"]

MOST_LINE = 1 << 22  # 4 MiB: microgpt's 4,192 gradients are about 100 kB
MOST_TOTAL = 1 << 26  # 64 MiB in all: a flood is stopped, not read forever
ENDED, LATE = "ended", "late"  # no more lines (the child exited); none before the deadline
_loads, _dumps, _read, _write = json.loads, json.dumps, os.read, os.write


class MalformedError(Exception):
    """What came through the pipe is not an answer the parent can read (too long, not JSON)."""


class Sender:
    """The child's end: one JSON line per message."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, message: Any) -> None:
        data = (_dumps(message) + "\n").encode()
        while data:
            data = data[_write(self.fd, data) :]


class Receiver:
    """The parent's end: the next message, ``ENDED``, ``LATE``, or ``MalformedError`` raised."""

    def __init__(self, fd: int) -> None:
        import select  # here: only a forking system reads a pipe (the browser's Python may lack it)

        self.fd, self.buffer, self.total, self.select = fd, bytearray(), 0, select.select

    def next(self, deadline: float) -> Any:
        while b"\n" not in self.buffer:
            if len(self.buffer) > MOST_LINE:
                raise MalformedError(f"an answer longer than {MOST_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not self.select([self.fd], [], [], left)[0]:
                return LATE
            chunk = _read(self.fd, 65536)
            if not chunk:
                if self.buffer:
                    raise MalformedError("an answer cut off in the middle")
                return ENDED
            self.total += len(chunk)
            if self.total > MOST_TOTAL:
                raise MalformedError(f"more than {MOST_TOTAL} bytes of answers")
            self.buffer += chunk
        line, _, rest = bytes(self.buffer).partition(b"\n")
        self.buffer = bytearray(rest)
        if len(line) > MOST_LINE:
            raise MalformedError(f"an answer longer than {MOST_LINE} bytes")
        try:
            return _loads(line)
        except ValueError as exc:  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
            raise MalformedError(f"an answer that is not JSON ({exc})") from None
