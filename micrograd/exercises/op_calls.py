"""The calls of the learner's op that ``check`` needs, as raw numbers: its value at a point, its
gradients there (for a given ``grad_output``, or of ``op + each input``), and what
``grad(create_graph=True)`` gives (``Second``).  Nothing here decides anything: the checks compare
these numbers with references computed before the learner's code ran (``op_refs``).

``Local`` runs the op in this process (the browser's Python, or no time limit).  On Linux,
``Remote`` asks a forked child for each number, one request at a time, and reads the answer with
a deadline and checked for its shape: the parent never runs the learner's code, and a missing,
extra or malformed answer is ``StoppedError`` naming the call it was due for, never a number;
a call that broke (a typo in the learner's code) is raised here as its type, message and the
child's traceback, without running the learner's code again.

>>> from micrograd.exercises.running import Limited
>>> calls = Local(Limited(lambda x: x * x, 5.0))
>>> calls.forward((3.0,), ()), calls.grads((3.0,), (), -2.0)
(9.0, [-12.0])
"""

from __future__ import annotations

import builtins
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine import Value
from ..func.reverse import grad
from . import isolation
from .channel import ENDED, LATE, MalformedError
from .compare import at_point
from .engine.answers import keys, nums, texts
from .engine.child import Guard
from .engine.run import StoppedError
from .forked import Forked
from .references import Point
from .running import Limited, NotWrittenError, Raised, TimedOut, call_op, grads_of, run_student

__all__ = ["Local", "Remote", "Second", "serve"]

Params = tuple[float, ...]
_float, _type, _monotonic = float, type, time.monotonic


@dataclass
class Second:
    """What ``grad(create_graph=True)`` gives at a point: ``error``, the type of what it raised
    ("" when it ran); which first derivatives are connected to the inputs; their derivatives
    (None: an arithmetic error while differentiating them)."""

    error: str = ""
    connected: list[bool] = field(default_factory=list)
    hessian: list[list[float]] | None = None


def floats(gs: list[Any]) -> list[float]:
    return [_float(g.data if isinstance(g, Value) else g) for g in gs]


def hessian_rows(firsts: list[Any], xs: list[Value]) -> list[list[float]]:
    """d(first derivative i)/d(input j) for each i, j (0 where a derivative is a constant)."""
    return [
        [0.0 if s is None else _float(s) for s in grad(g, xs, allow_unused=True)]
        if isinstance(g, Value)
        else [0.0] * len(xs)
        for g in firsts
    ]


class Local:
    """The learner's op run here, each call under the time limit (``Limited``); after each call,
    ``builtins``, ``math`` and the recursion limit are put back as they were (``Guard``)."""

    def __init__(self, student: Limited, guard: Guard | None = None) -> None:
        self.student, self.guard = student, guard or Guard()
        student.after = self.guard.restore
        self.graphs: dict[str, tuple[list[Value], Value]] = {}  # by repr: 0.0 and -0.0 are two points

    def close(self) -> None:
        """Nothing to end: the op ran here."""

    def finish(self) -> None:
        """Nothing to read: every answer was the op's own."""

    def settled(self, run: Callable[[], Any]) -> Any:
        try:
            return run()
        finally:
            self.guard.restore()

    def forward(self, pt: Point, ps: Params) -> float | Raised:
        def run() -> float | Raised:
            got = run_student(self.student, pt, ps, "forward")
            if isinstance(got, Raised):
                return got
            self.graphs[repr((pt, ps))] = got  # its backward is asked for next: the same graph
            return _float(got[1].data)

        return self.settled(run)  # type: ignore[no-any-return]

    def grads(self, pt: Point, ps: Params, upstream: float = 1.0) -> list[float] | Raised:
        def run() -> list[float] | Raised:
            kept = self.graphs.get(repr((pt, ps))) if upstream == 1.0 else None
            got = kept or run_student(self.student, pt, ps, "forward")
            if isinstance(got, Raised):
                return got
            gs = grads_of(self.student, got[0], got[1], ps, upstream)
            return gs if isinstance(gs, Raised) else floats(gs)

        return self.settled(run)  # type: ignore[no-any-return]

    def with_inputs(self, pt: Point, ps: Params) -> list[float] | Raised:
        """The gradients of ``op(x) + x`` (each input added once more): the lecture's ``=`` bug
        loses the other use's 1."""

        def run() -> list[float] | Raised:
            xs, out = call_op(self.student, pt, ps)
            root = out
            for x in xs:
                root = root + x
            gs = grads_of(self.student, xs, root, ps)
            return gs if isinstance(gs, Raised) else floats(gs)

        return self.settled(run)  # type: ignore[no-any-return]

    def second(self, pt: Point, ps: Params) -> Second:
        return self.settled(lambda: self._second(pt, ps))  # type: ignore[no-any-return]

    def _second(self, pt: Point, ps: Params) -> Second:
        try:
            xs, out = call_op(self.student, pt, ps)
            firsts = self.student.grad(out, xs, ps, create_graph=True)
        except NotImplementedError:
            raise NotWrittenError("backward") from None
        except Exception as exc:
            return Second(type(exc).__name__)
        connected = [
            isinstance(g, Value) and any(s is not None for s in grad(g, xs, allow_unused=True))
            for g in firsts
        ]
        try:
            return Second("", connected, hessian_rows(firsts, xs))
        except (ArithmeticError, ValueError):
            return Second("", connected)


# ---- in the child: each request answered with raw numbers ------------------------------------


def encode(got: Any) -> dict[str, Any]:
    if isinstance(got, Raised):
        return {"raised": [got.error, got.message[:2000], got.line[:2000]]}
    if isinstance(got, Second):
        return {"second": [got.error, got.connected, got.hessian]}
    return {"value": got}


def answer(local: Local, request: list[Any]) -> dict[str, Any]:
    kind, pt, ps, upstream = request
    pt, ps = tuple(pt), tuple(ps)
    try:
        if kind == "grads":
            return encode(local.grads(pt, ps, upstream))
        return encode(getattr(local, kind)(pt, ps))
    except NotWrittenError as todo:
        return {"todo": todo.where}
    except TimedOut as slow:
        return {"timeout": slow.what}
    except Exception as exc:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return {"broke": [type(exc).__name__, str(exc)[:2000], text[-20000:]]}


def serve(student: Limited, requests: Iterator[Any]) -> Iterator[dict[str, Any]]:  # pragma: no cover
    """The child's answers, one per request, numbered; "bye" is answered and ends them."""
    local = Local(student, Guard())
    for k, request in enumerate(requests):
        if request == "bye":
            yield {"k": k, "bye": True}
            return
        yield {"k": k, **answer(local, request)}


# ---- in the parent: each answer read and checked for its shape -------------------------------


def described(kind: str, names: list[str], pt: Point, ps: Params) -> str:
    what = {"forward": "forward", "grads": "backward", "with_inputs": "backward", "second": "second order"}
    return f"{what[kind]} at {at_point(names, pt, ps)}"


def read_value(kind: str, got: dict[str, Any], n: int) -> Any:
    """An answer's payload as the checks take it (each kind its own shape), or MalformedError.

    >>> read_value("forward", {"value": 2}, 1), read_value("grads", {"value": [0.5]}, 1)
    (2.0, [0.5])
    >>> read_value("forward", {"value": [0.5]}, 1)
    Traceback (most recent call last):
    ...
    micrograd.exercises.channel.MalformedError: a list where a number belongs
    """
    if kind == "second":
        return read_second(got, n)
    if "raised" in got:
        return Raised(*texts(got["raised"], 3))
    if "value" not in got:
        raise MalformedError(f"a {kind} answer without a value")
    if kind != "forward":
        return floats_of(got["value"], n)
    value = nums([got["value"]], 1)[0]
    if _type(value) is not float:
        raise MalformedError("a forward value that is not a number")
    return value


def read_second(got: dict[str, Any], n: int) -> Second:
    if _type(got.get("second")) is not list or len(got["second"]) != 3:
        raise MalformedError("a second order that is not one")
    error, connected, hessian = got["second"]
    if _type(error) is not str or len(error) > 200:
        raise MalformedError("a second order whose error is not a name")
    if error:  # grad(create_graph=True) raised: nothing more
        if connected != [] or hessian is not None:
            raise MalformedError("a second order that both raised and ran")
        return Second(error)
    if _type(connected) is not list or len(connected) != n or not all(_type(c) is bool for c in connected):
        raise MalformedError("a second order that is not one")
    rows = None if hessian is None else [floats_of(row, n) for row in list_of(hessian, n)]
    return Second(error, connected, rows)


def list_of(x: Any, n: int) -> list[Any]:
    if _type(x) is not list or len(x) != n:
        raise MalformedError(f"not a list of {n} rows")
    return list(x)


def floats_of(x: Any, n: int) -> list[float]:
    got = nums(x, n)
    if not all(_type(v) is float for v in got):
        raise MalformedError("a text where a number belongs")
    return [_float(v) for v in got]


# Captured at import: the exception types a broken call is raised as in the parent.
_EXCEPTIONS = {k: v for k, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, Exception)}


def learner_exception(name: str, message: str, trace: str) -> Exception:
    """What the learner's code raised in the child, raised here without running it again: its
    type (a built-in one; else RuntimeError naming it), its message, and the child's traceback
    as a note (Python 3.11+), which names the learner's own lines.

    >>> error = learner_exception("ValueError", "too many values to unpack", "Traceback ...")
    >>> type(error).__name__, str(error)
    ('ValueError', 'too many values to unpack')
    """
    kind = _EXCEPTIONS.get(name)
    try:
        exc = kind(message) if kind is not None else RuntimeError(f"{name}: {message}")
    except Exception:  # (a type whose constructor takes other arguments)
        exc = RuntimeError(f"{name}: {message}")
    if hasattr(exc, "add_note"):
        exc.add_note(f"(in the process that ran your op:)\n{trace}")
    return exc


class Remote:
    """The learner's op run in a forked child, asked for each number in turn."""

    def __init__(self, student: Limited, names: list[str], n_inputs: int) -> None:
        self.student, self.names, self.n = student, names, n_inputs
        self.k = 0
        self.stopped: StoppedError | None = None  # once stopped, every later call is too
        self.child = Forked(lambda requests: serve(student, requests))

    def close(self) -> None:
        self.child.close()

    def forward(self, pt: Point, ps: Params) -> float | Raised:
        return self.ask("forward", pt, ps)  # type: ignore[no-any-return]

    def grads(self, pt: Point, ps: Params, upstream: float = 1.0) -> list[float] | Raised:
        return self.ask("grads", pt, ps, upstream)  # type: ignore[no-any-return]

    def with_inputs(self, pt: Point, ps: Params) -> list[float] | Raised:
        return self.ask("with_inputs", pt, ps)  # type: ignore[no-any-return]

    def second(self, pt: Point, ps: Params) -> Second:
        return self.ask("second", pt, ps)  # type: ignore[no-any-return]

    def ask(self, kind: str, pt: Point, ps: Params, upstream: float = 1.0) -> Any:
        if self.stopped is not None:
            raise self.stopped
        case = described(kind, self.names, pt, ps)
        try:
            self.send([kind, list(pt), list(ps), upstream], case)
            return self.read(kind, pt, ps, case)
        except StoppedError as stop:
            self.stopped = stop
            raise

    def send(self, request: Any, case: str) -> None:
        try:
            self.child.send(request)
        except OSError:  # (its end of the pipe closed: the child is gone)
            raise StoppedError("stopped", f"{case}: the process running it had ended (os._exit?)") from None

    def read(self, kind: str, pt: Point, ps: Params, case: str) -> Any:
        got = self.message(kind, pt, ps, case)
        try:
            got = keys(got, {"k", "raised", "value", "second", "todo", "timeout", "broke"})
            if got.pop("k", None) != self.k or len(got) != 1:
                raise MalformedError("something other than this case's answer")
            self.k += 1
            if "todo" in got or "timeout" in got:
                return self.stop_here(kind, pt, ps, got)
            if "broke" in got:
                raise learner_exception(*texts(got["broke"], 3))
            return read_value(kind, got, self.n)
        except MalformedError as bad:
            raise StoppedError("stopped", f"{case}: it sent {bad}") from None

    def message(self, kind: str, pt: Point, ps: Params, case: str) -> Any:
        # The child stops a call at the limit itself; past this, a bare ``except:`` swallowed the
        # stop (or the child is stuck) and the child is killed, within twice the limit.
        hard = isolation.hard_limit(self.student.seconds or 0.0)
        until = min(_monotonic() + hard, self.student.deadline + hard)
        try:
            got = self.child.next(until)
        except MalformedError as bad:
            raise StoppedError("stopped", f"{case}: it sent {bad}") from None
        if got is LATE:
            what = "forward" if kind == "forward" else "backward"
            raise self.student.out_of_time(what, pt, ps)
        if got is ENDED:
            raise StoppedError(
                "stopped", f"{case}: the process running it ended without an answer (os._exit? crashed?)"
            )
        return got

    def stop_here(self, kind: str, pt: Point, ps: Params, got: dict[str, Any]) -> Any:
        what = got.get("todo", got.get("timeout"))
        if _type(what) is not str or what not in ("forward", "backward", "total"):
            raise MalformedError("a stop that is not one")
        if "todo" in got and what != "total":
            raise NotWrittenError(what)
        if "timeout" in got:  # (the parent's clock says whether the whole check's end has come)
            call = what if what != "total" else "forward" if kind == "forward" else "backward"
            raise self.student.out_of_time(call, pt, ps)
        raise MalformedError("a stop that is not one")

    def finish(self) -> None:
        """The child's last answer: none may come that was not asked for."""
        if self.stopped is not None:
            return
        self.send("bye", "the end")
        got = self.message("forward", (), (), "the end")
        if got != {"k": self.k, "bye": True}:
            raise StoppedError("stopped", "the end: it sent answers it was not asked for")


def remote_or_local(student: Limited, names: list[str], n_inputs: int) -> Local | Remote:
    """A forked child where there is fork and a time limit, else this process."""
    if student.seconds is not None and isolation.available():
        return Remote(student, names, n_inputs)
    return Local(student)
