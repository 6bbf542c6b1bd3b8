"""Running the student's code: each call of its forward and of its backward under the time
limit, the arithmetic errors Python's math raises (kept as ``Raised``, with the student's line),
``NotImplementedError`` (not written yet) and calls out of time (``TimedOut``)."""

from __future__ import annotations

import linecache
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..engine import Value
from ..func.reverse import grad
from .references import Point
from .time_limit import Interrupted, time_limit


class NotWrittenError(Exception):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class TimedOut(BaseException):
    """A call of the student's code ran out of time: which one, and where."""

    def __init__(self, what: str, pt: Point, ps: tuple[float, ...], seconds: float) -> None:
        super().__init__(what)
        self.what, self.pt, self.ps, self.seconds = what, pt, ps, seconds


def call_op(f: Callable[..., Value], pt: Point, ps: tuple[float, ...]) -> tuple[list[Value], Value]:
    xs = [Value(v) for v in pt]
    out = f(*xs, *ps)
    if not isinstance(out, Value):
        raise TypeError(f"check: the op must return a Value, got {type(out).__name__}: {out!r}")
    return xs, out


@dataclass
class Raised:
    """The arithmetic error the student's code raised at a point (Python's float semantics, not
    PyTorch's): the exception's text and the student's own line that raised it."""

    error: str
    message: str
    line: str

    def __str__(self) -> str:
        return f"{self.error}: {self.message}"


def is_arithmetic(exc: BaseException) -> bool:
    """Python's math raising where PyTorch gives inf or nan: 1/0, math.exp(1000), math.log(-1),
    int(inf).  Any other ValueError (a failed unpacking, say) is a bug in the code: it raises."""
    if isinstance(exc, ArithmeticError):
        return True
    text = str(exc).lower()
    return isinstance(exc, ValueError) and ("math domain error" in text or "nan" in text)


_PACKAGE = str(Path(__file__).resolve().parent) + os.sep  # frames in here are not the student's


def raised_at(exc: BaseException) -> Raised:
    """``exc`` with the innermost line of the student's code (outside micrograd) it passed through."""
    line = ""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not str(Path(code.co_filename).resolve()).startswith(_PACKAGE):
            line = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip() or line
        tb = tb.tb_next
    return Raised(type(exc).__name__, str(exc), line)


def run_student(
    f: Callable[..., Value], pt: Point, ps: tuple[float, ...], what: str
) -> tuple[list[Value], Value] | Raised:
    """Run the student's op: its result, or the arithmetic error it raised at this point."""
    try:
        return call_op(f, pt, ps)
    except NotImplementedError as exc:
        raise NotWrittenError(which_rule(exc, what)) from None
    except (ArithmeticError, ValueError) as exc:
        if not is_arithmetic(exc):
            raise
        return raised_at(exc)


def which_rule(exc: BaseException, default: str) -> str:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name in ("forward", "backward"):
            default = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return default


def grads_of(
    student: Limited,
    xs: list[Value],
    out: Value,
    ps: tuple[float, ...] = (),
    upstream: float = 1.0,
    create_graph: bool = False,
) -> list[Any] | Raised:
    try:
        gs = student.grad(out, xs, ps, grad_outputs=[upstream], create_graph=create_graph)
    except NotImplementedError as exc:
        raise NotWrittenError(which_rule(exc, "backward")) from None
    except (ArithmeticError, ValueError) as exc:
        if not is_arithmetic(exc):
            raise
        return raised_at(exc)
    return [0.0 if g is None else g for g in gs]


# ---- the time limit ---------------------------------------------------------------------


T = TypeVar("T")


class Limited:
    """The student's op, each call of its forward and of its backward (``grad``) under the time
    limit; a call out of time is a ``TimedOut`` naming the point.  (Where the op runs in a
    forked child, the parent kills it when a call runs past the limit anyway: an ``except:``
    that swallowed the in-process stop.)"""

    def __init__(self, f: Callable[..., Value], seconds: float | None) -> None:
        self.f, self.seconds = f, seconds
        self.__name__ = getattr(f, "__name__", "the op")
        self.deadline = math.inf  # the whole check's end (``total_timeout``), once it starts
        self.total: float | None = None
        # run as each call of the student's code ends: what it patched put back (``Guard``), before
        # any of the grader's own code runs again
        self.after: Callable[[], None] | None = None

    def __call__(self, *args: Any) -> Value:
        return self._limited("forward", args, lambda: self.f(*args))

    def grad(self, out: Value, xs: list[Value], ps: tuple[float, ...] = (), **kwargs: Any) -> list[Any]:
        return self._limited("backward", [*xs, *ps], lambda: list(grad(out, xs, allow_unused=True, **kwargs)))

    def _limited(self, what: str, args: Sequence[Any], call: Callable[[], T]) -> T:
        pt, ps = point_of(args)
        started, seconds = time.monotonic(), self.limit()
        try:
            with time_limit(seconds):
                try:
                    answer = call()
                finally:  # (before time_limit's own exit runs under what the student patched)
                    if self.after is not None:
                        self.after()
        except Interrupted as exc:
            raise self.out_of_time(which_rule(exc, what), pt, ps) from None
        if seconds is not None and time.monotonic() - started > seconds:
            # Stopped, but the student's own ``except:`` swallowed the stop and the call went on:
            # out of time all the same (its answer is whatever the handler left).
            raise self.out_of_time(what, pt, ps)
        return answer

    def limit(self) -> float | None:
        """This call's limit: ``seconds``, or less when the whole check's end comes first."""
        left = self.deadline - time.monotonic()
        if left == math.inf:
            return self.seconds
        return max(min(self.seconds or math.inf, left), 0.001)

    def out_of_time(self, what: str, pt: Point, ps: tuple[float, ...]) -> TimedOut:
        if time.monotonic() >= self.deadline:
            return TimedOut("total", pt, ps, self.total or 0.0)
        return TimedOut(what, pt, ps, self.seconds or 0.0)


def point_of(args: Sequence[Any]) -> tuple[Point, tuple[float, ...]]:
    """The inputs' numbers and the params of a call, for the messages."""
    pt = tuple(float(a.data) for a in args if isinstance(a, Value))
    ps = tuple(float(a) for a in args if not isinstance(a, Value))
    return pt, ps


Case = tuple[Point, tuple[float, ...], bool]  # the inputs' numbers, the params, whether an edge point
# the student's forward at a case: its inputs and result, or what it raised
Run = tuple[list[Value], Value] | Raised


@dataclass
class Task:
    """What every check needs: the student's op (time-limited), the reference (None: none),
    the cases to try, the inputs' names (for messages) and the domain."""

    student: Limited
    reference: Callable[..., Value] | None
    like_name: str
    cases: list[Case]
    names: list[str]
    inside: Callable[..., bool]
    bounds: set[float]
    refs: Any = None  # the reference at each case (``op_refs.Ref``), or None: no reference
    calls: Any = None  # the student's op's numbers (``op_calls.Local`` or ``Remote``), while it runs
