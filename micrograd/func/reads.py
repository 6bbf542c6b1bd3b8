"""Reads of a traced input's ``.data``, and whether the number read reached the result as a constant.

A transform (``func.grad``) or ``compile`` runs the user's function on Values it made; a
``.data`` read gives a plain float.  Two idioms read it and only one is wrong:

- ``x.data * x``: the number becomes a constant of the graph (``Value(x.data)``), so no
  gradient flows through it, and a compiled step would keep the traced number;
- ``x * x if x.data > 0 else -x`` (a branch) or a lecture-style op,
  ``Value(a.data * 3, (a,), "times3")`` with its own ``_backward``: the number never becomes a
  constant of the graph, and the result is right.

So a read is only noted (the float object read, and the user's line), and once the function
has returned, ``constants_read`` finds the constants of the result's graph that *are* a number
read (by identity: ``Value(x.data)`` keeps the very float object, and each read gives a float
object of its own): those are warned of.

>>> from micrograd import Value
>>> x = watch_reads(Value(2.5))
>>> with ReadLog() as log:
...     y = x.data * x               # a constant: x's own number
...     z = x * x if x.data > 0 else -x   # a branch: nothing of it in z's graph
>>> [line for line, _ in constants_read(y, log, [x])] == [log.reads[0][1]], constants_read(z, log, [x])
(True, [])
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import Any

from .._core import nodes
from ..engine import Value, topological_order

_DATA_SLOT: Any = Value.__dict__["data"]  # the slot's own descriptor: what a watched Value's .data reads
_logs = threading.local()  # this thread's open ReadLogs, innermost last


class WatchedValue(Value):
    """A traced input whose ``.data``, read by the user's code, is noted in the open ``ReadLog``.
    Only traced inputs are of this class: every other Value keeps the plain slot, at full speed.
    The engine's own reads are not noted."""

    __slots__ = ()

    @property
    def data(self) -> float:
        number = _DATA_SLOT.__get__(self)
        logs = getattr(_logs, "open", None)
        if logs:
            frame = sys._getframe(1)
            if not frame.f_code.co_filename.startswith(nodes.ENGINE_DIRS):
                # a float object of this read's own (x * 1.0 is x, signed zeros and nan included),
                # so that a constant made from it is told apart from one made by another read
                number = number * 1.0 if type(number) is float else number
                logs[-1].reads.append((number, (frame.f_code.co_filename, frame.f_lineno)))
        return number  # type: ignore[no-any-return]

    @data.setter
    def data(self, value: float) -> None:
        _DATA_SLOT.__set__(self, value)


def watch_reads(v: Value) -> Value:
    """``v``, its ``.data`` reads noted from now on (the same object: only its class changes)."""
    v.__class__ = WatchedValue
    return v


def unwatch(values: Iterable[Value]) -> None:
    """Plain Values again (a compiled plan then sees the engine's own class)."""
    for v in values:
        v.__class__ = Value


class ReadLog:
    """The ``.data`` reads of watched Values within the block: ``(number, (file, line))`` each."""

    def __init__(self) -> None:
        self.reads: list[tuple[float, tuple[str, int]]] = []

    def __enter__(self) -> ReadLog:
        if not hasattr(_logs, "open"):
            _logs.open = []
        _logs.open.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _logs.open.remove(self)


def constants_read(
    roots: Value | Iterable[Value], log: ReadLog, fed: Iterable[Value]
) -> list[tuple[tuple[str, int], float]]:
    """The reads of ``log`` whose number is a constant leaf of the graph of ``roots`` (a leaf other
    than ``fed``, the inputs and parameters, and what they were made from): ``((file, line),
    number)`` each, in the order read."""
    if not log.reads:
        return []
    fed = list(fed)
    skip = {id(v) for v in fed} | {id(c) for v in fed for c in v._prev}
    graph = topological_order([roots] if isinstance(roots, Value) else roots)
    constants = {id(v.data) for v in graph if not v._prev and id(v) not in skip}
    return [(where, number) for number, where in log.reads if id(number) in constants]
