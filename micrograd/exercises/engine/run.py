"""Where ``check_engine`` runs the learner's class: on Linux in a forked child whose only way back
is a pipe of JSON lines (``channel``), elsewhere here, in this process.  Either way the grader
reads the answers one case at a time, in the order it asked for them, each checked for its
shape (``answers``): an answer that is missing, late, out of order or malformed stops the
reading with ``StoppedError``, which the table reports as such.

>>> from micrograd import Value
>>> from micrograd.exercises.engine.child import Job
>>> from micrograd.exercises.engine.cases import OP_CASES
>>> with Reader(Value, [Job("expr", "a + b", OP_CASES["+"][0])], 5.0, None) as reader:
...     reader.class_info()["problem"], reader.answer(0)["back"]["grad"]
(None, [1.0, 1.0, 1.0])
"""

from __future__ import annotations

import json
import math
import time
from types import TracebackType
from typing import Any, Protocol

from .. import isolation
from ..channel import ENDED, LATE, MalformedError
from ..forked import Forked
from .answers import read_answer, read_class
from .child import Guard, Job, answers

__all__ = ["Reader", "Source", "StoppedError"]

IDLE = 60.0  # longest the child's own bookkeeping may take between two cases, in seconds
_dumps, _loads, _monotonic = json.dumps, json.loads, time.monotonic


class StoppedError(Exception):
    """The reading stopped: ``kind`` is "timeout" (a case ran out of time and its process was
    killed), "total" (the overall limit) or "stopped" (no answer, or not one: ``reason``)."""

    def __init__(self, kind: str, reason: str = "") -> None:
        super().__init__(reason or kind)
        self.kind, self.reason = kind, reason


class Here:
    """The answers computed in this process, each through JSON as the child's are."""

    def __init__(self, cls: type, jobs: list[Job], seconds: float | None, deadline: float) -> None:
        self.messages = answers(cls, jobs, seconds, deadline=deadline)

    def next(self, until: float) -> Any:
        message = next(self.messages, ENDED)
        return message if message is ENDED else _loads(_dumps(message))

    def close(self) -> None:
        self.messages.close()


class Child(Forked):
    """The answers computed in a forked child, read from its pipe; the child never outlives this."""

    def __init__(self, cls: type, jobs: list[Job], seconds: float | None, deadline: float) -> None:
        super().__init__(lambda requests: answers(cls, jobs, seconds, Guard()))


class Source(Protocol):
    """Where the answers come from: ``next(until)`` gives a message, ``ENDED`` or ``LATE``."""

    def next(self, until: float) -> Any: ...

    def close(self) -> None: ...


class Reader:
    """The class's info, then each case's answer, read in order under the time limits."""

    def __init__(
        self,
        cls: type | None,
        jobs: list[Job],
        seconds: float | None,
        total: float | None,
        source: Source | None = None,
    ) -> None:
        self.jobs, self.seconds = jobs, seconds
        self.deadline = math.inf if total is None else _monotonic() + total
        if source is None:
            assert cls is not None, "a Reader runs a class, or reads a source given it"
            forked = seconds is not None and isolation.available()
            source = (Child if forked else Here)(cls, jobs, seconds, self.deadline)
        self.source = source

    def __enter__(self) -> Reader:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.source.close()

    def message(self, until: float) -> Any:
        try:
            message = self.source.next(min(until, self.deadline))
        except MalformedError as bad:
            raise StoppedError("stopped", f"it sent {bad}") from None
        if message is LATE:
            raise StoppedError("total" if _monotonic() >= self.deadline else "timeout")
        if message is ENDED:
            raise StoppedError(
                "stopped", "the process running it ended without an answer (os._exit? crashed?)"
            )
        return message

    def limit(self) -> float:
        """When the case now starting must have answered (the child stops it at ``seconds``)."""
        return math.inf if self.seconds is None else _monotonic() + isolation.hard_limit(self.seconds)

    def class_info(self) -> dict[str, Any]:
        message = self.message(self.limit())
        if type(message) is not dict or list(message) != ["class"]:
            raise StoppedError("stopped", "it sent something other than the description of the class")
        try:
            return read_class(message["class"])
        except MalformedError as bad:
            raise StoppedError("stopped", f"it sent {bad}") from None

    def answer(self, k: int) -> dict[str, Any]:
        """The answer to case ``k``, checked; ``StoppedError`` when there is none."""
        if self.message(_monotonic() + IDLE) != {"start": k}:
            raise StoppedError("stopped", "it sent something other than this case's start")
        message = self.message(self.limit())
        if type(message) is not dict or message.pop("k", None) != k:
            raise StoppedError("stopped", "it sent something other than this case's answer")
        try:
            return read_answer(self.jobs[k], message)
        except MalformedError as bad:
            raise StoppedError("stopped", f"it sent {bad}") from None
