"""Exercises that check themselves: ``check`` tells a student whether the op they wrote is right.

``check(fn, like=...)`` runs a user ``Function`` (or a plain function of Values)
at ordinary points and at the edges of its domain (±0, ±1e-8, ±1, ±20,
±1000) and checks, one line each:

* forward: the result against the reference op named by ``like`` (or a callable);
* backward: the gradient against the reference's gradient and against central differences;
* chain rule: that backward multiplies by ``grad_output``;
* second order: when backward is written with differentiable math (``grad(create_graph=True)``
  works and its result depends on the inputs), the second derivatives too.

A failure names the input, both numbers and, where the mistake is a usual one,
a hint.  A right formula that only breaks at an edge (Python's ``math.exp``
raising ``OverflowError`` at x = -1000, ``1 / x`` raising ``ZeroDivisionError``
at 0, a value that differs only at ±0 or where an intermediate overflowed to
inf or nan) is not called wrong: its line says EDGE, with the point and the fix
(``micrograd.math``'s ``div``, ``exp``, ``log``, ... follow PyTorch's float
semantics instead of raising).  The result's ``verdict`` sums it up: RIGHT,
RIGHT, EXCEPT AT EDGES, WRONG, NOT WRITTEN YET or TIMED OUT.

Every call of the student's code runs with a time limit (``timeout`` seconds,
5 by default): a forward or backward that runs longer is stopped and named, with
the point.  On Linux the student's op runs in a forked child process, which is killed if
the student's own ``except:`` swallows the stop (``isolation``), so ``check`` always comes back,
within about twice the limit.  The child only sends the op's numbers back (``op_calls``): the
references (``op_refs``, computed before the op runs) and every line are decided here, where
the student's code never runs.  ``check`` returns a ``CheckResult`` (truthy when every check
passed) and never raises on a wrong answer: only a broken call (a ``TypeError`` in the
student's code, say) raises, with the student's own traceback (from the child: its type, its
message and the child's traceback as a note).  A forward or
backward that still raises ``NotImplementedError`` counts as not written yet.
In a terminal the lines are printed; in Jupyter the result shows as a small
coloured table.

>>> from micrograd import Function, math
>>> class MyTanh(Function):
...     @staticmethod
...     def forward(ctx, x):
...         return math.tanh(x)
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * (1 - ctx.output**2)
>>> result = check(MyTanh, like="tanh", quiet=True)
>>> bool(result), [line.status for line in result.lines], result.verdict
(True, ['OK', 'OK', 'OK', 'OK'], 'RIGHT')
"""

from __future__ import annotations

import math as _pymath
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..engine import Value
from .chain_rule import check_chain_rule
from .compare import at_point
from .engine.run import StoppedError
from .first_order import check_backward, check_forward
from .inputs import caller, count_inputs, domain_of, parse_params, points_of, resolve_like
from .op_calls import remote_or_local
from .op_refs import reference_table
from .references import BINARY, UNARY
from .result import CheckLine, CheckResult, Progress
from .running import Limited, NotWrittenError, Task, TimedOut
from .second_order import check_second_order

__all__ = ["CheckLine", "CheckResult", "check"]


def check(
    fn: Any,
    like: str | Callable[..., Value] | None = None,
    domain: Any = None,
    *,
    params: Sequence[Any] = (),
    points: Sequence[Any] | None = None,
    quiet: bool = False,
    timeout: float | None = 5.0,
    total_timeout: float | None = 120.0,
) -> CheckResult:
    """Check the op ``fn`` (a ``Function`` subclass, or a function of Values) against ``like``.

    ``like``: a built-in op's name (``"tanh"``, ``"exp"``, ``"sigmoid"``, ``"relu"``,
    ``"leaky_relu"``, ``"mul"``, ``"div"``, ... ; ``check.ops`` lists them), a function of
    Values, another ``Function``, or None (then forward is not compared, and backward only
    against central differences).  ``domain``: where the op is defined, as ``(low, high)``
    for every input (closed), one such pair per input, or a predicate of the inputs' numbers;
    the default is the named op's (``log``: ``(0, inf)``), else every real.
    ``params``: numbers passed after the inputs, to ``fn`` and to the reference alike
    (``params=(0.1,)`` for a slope), or a list of such tuples to try several.
    ``points``: your own points instead of the generated ones (numbers, or tuples for
    several inputs).  ``quiet``: print nothing (else each line is printed as it is decided).
    ``timeout``: seconds each call of your forward or backward may take (None: no limit); a
    call that runs longer is stopped and reported as TIMEOUT with its point.
    ``total_timeout``: seconds for the whole check (None: no limit); past it the verdict is
    TIMED OUT, with the lines decided so far.

    >>> result = check(lambda x: x * x, like="square", quiet=True)
    >>> result.verdict
    'RIGHT'
    >>> import math
    >>> def my_exp(x):  # Python's math.exp raises OverflowError at x = 1000
    ...     out = Value(math.exp(x.data), (x,), "exp")
    ...     def _backward():
    ...         x.grad += out.data * out.grad
    ...     out._backward = _backward
    ...     return out
    >>> result = check(my_exp, like="exp", quiet=True)
    >>> result.verdict, result.lines[0].status
    ('RIGHT, EXCEPT AT EDGES', 'EDGE')
    """
    check_timeout(timeout, "timeout")
    check_timeout(total_timeout, "total_timeout")
    name = getattr(fn, "name", "") or getattr(fn, "__name__", "") or type(fn).__name__
    task = make_task(fn, name, like, domain, params, points, timeout)
    task.student.total = total_timeout
    result = CheckResult(name)
    progress = Progress(result, quiet)
    result.lines = Shown(progress.show)
    try:
        grade(task, result, isinstance(fn, type))
    except Exception as exc:  # a broken call: the student's own exception, traceback and all
        if hasattr(exc, "add_note"):  # Python 3.11+
            exc.add_note(f"(raised while micrograd.exercises.check ran {name})")
        raise
    result.lines = list(result.lines)
    progress.done()
    return result


check.ops = sorted([*UNARY, *BINARY])  # type: ignore[attr-defined]


def check_timeout(timeout: Any, name: str = "timeout") -> None:
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0.0 < timeout < _pymath.inf
    ):
        raise ValueError(f"check: {name} must be a positive number of seconds or None, got {timeout!r}")


class Shown(list[CheckLine]):
    """The result's lines, each shown as it is added (``Progress.show``)."""

    def __init__(self, show: Callable[[CheckLine], None]) -> None:
        super().__init__()
        self.show = show

    def append(self, line: CheckLine) -> None:
        super().append(line)
        self.show(line)

    def extend(self, lines: Iterable[CheckLine]) -> None:
        for line in lines:
            self.append(line)


def make_task(
    fn: Any,
    name: str,
    like: Any,
    domain: Any,
    params: Sequence[Any],
    points: Sequence[Any] | None,
    timeout: float | None,
) -> Task:
    """``check``'s arguments, each checked, as what the checks run."""
    student = caller(fn, "fn")
    param_sets = parse_params(params)
    reference, like_name = resolve_like(like)
    arity, names = count_inputs(fn, like_name, points, len(param_sets[0]))
    if like_name in BINARY and arity != 2:
        raise ValueError(f"check: like={like_name!r} is a binary op, but {name} takes {arity} input(s)")
    if like_name in UNARY and arity != 1:
        raise ValueError(f"check: like={like_name!r} takes one input, but {name} takes {arity}")
    inside, bounds = domain_of(domain, like_name, arity)
    pts = points_of(points, arity, inside)
    cases = [(pt, ps, edge) for ps in param_sets for pt, edge in pts]
    limited = Limited(student, None if timeout is None else float(timeout))
    refs = reference_table(reference, cases)  # before the student's code runs once
    return Task(limited, reference, like_name, cases, names, inside, bounds, refs)


def grade(task: Task, result: CheckResult, is_function: bool) -> None:
    """Run the checks into ``result.lines``, each shown as it is decided.  Here, in this process,
    every line is decided: where there is a time limit and Linux's fork the student's op runs in
    a child process that only sends its numbers back (``op_calls.Remote``), else here."""
    total = task.student.total
    task.student.deadline = _pymath.inf if total is None else time.monotonic() + total
    task.calls = remote_or_local(task.student, task.names, len(task.cases[0][0]))
    try:
        grade_here(task, result.name, is_function, result)
    except StoppedError as stop:  # the student's code wrote into the pipe, exited, or answered out of turn
        result.lines.append(stopped_line(stop))
    finally:
        task.calls.close()


def stopped_line(stop: StoppedError) -> CheckLine:
    return CheckLine(
        "WRONG",
        "answer",
        f"your op stopped the grader at case {stop.reason}",
        "your op must only compute: writing to the grader's pipe or exiting stops it, and counts as wrong",
    )


def grade_here(task: Task, name: str, is_function: bool, result: CheckResult) -> CheckResult:
    """The checks: a call out of time or not written yet ends them with its line."""
    try:
        run_checks(result, task)
        task.calls.finish()
    except NotWrittenError as todo:
        result.lines.append(CheckLine("TODO", todo.where, f"{name}.{todo.where} is not written yet"))
    except TimedOut as slow:
        result.lines.append(timeout_line(slow, is_function, task.names))
    return result


def run_checks(result: CheckResult, task: Task) -> None:
    """The checks in order: forward, backward, chain rule, then second order (only once the
    first order is right: a wrong first derivative says all there is to say)."""
    runs, reported = check_forward(result, task)
    forward_wrong = result.lines[-1].status == "WRONG"
    check_backward(result, task, runs, reported)
    backward_wrong = result.lines[-1].status == "WRONG"
    check_chain_rule(result, task.calls, task.cases, runs, task.names)
    if backward_wrong or forward_wrong:
        what = "backward" if backward_wrong else "forward"
        result.lines.append(CheckLine("SKIP", "second order", f"not checked until {what} is right"))
    else:
        check_second_order(result, task)


def timeout_line(slow: TimedOut, is_function: bool, names: list[str]) -> CheckLine:
    """The TIMEOUT line: which call of the student's code ran out of time, and at which point."""
    if slow.what == "total":
        return CheckLine(
            "TIMEOUT",
            "total",
            f"check ran longer than {slow.seconds:g} s in all and was stopped at "
            f"{at_point(names, slow.pt, slow.ps)}; the lines above were decided",
            "pass a larger total_timeout=... (or fewer points=...)",
        )
    who = f"your {slow.what}" if is_function else f"your op's {slow.what}"
    return CheckLine(
        "TIMEOUT",
        slow.what,
        f"{who} ran longer than {slow.seconds:g} s at {at_point(names, slow.pt, slow.ps)} and was stopped",
        "an endless loop (a while loop whose condition never turns False)? "
        "or pass a larger timeout=... if it is only slow",
    )
