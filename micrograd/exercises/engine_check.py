"""``check_engine(Value)``: grade a learner's own micrograd ``Value`` class, written from scratch,
against this engine.

It builds expressions with the learner's class and with ours and compares them node by node
(``engine_eval``), one line per op, per part of ``backward()`` and per model (``engine_lines``):

* each op it has, of ``+ - * / **``, ``exp``, ``tanh``, ``relu`` and ``log``: RIGHT, WRONG (the
  expression, the node, both numbers and the rule to look at) or NOT WRITTEN YET;
* ``backward()``'s structure: the seed (``self.grad = 1``), accumulation (``a + a``: ``+=``, not
  ``=``), topological order (a reused non-leaf node) and zeroing (a second ``backward()`` adds
  the gradients again, as micrograd 0.1.0 and PyTorch do);
* the lecture's expressions, an MLP training step and microgpt's forward and backward on one
  name, each built from the learner's ops (what a model needs and is missing is named).

Time limits and the learner's exceptions are handled as ``check`` handles them: each line runs
under ``timeout`` seconds, in a forked child on Linux (``isolation``); ``NotImplementedError`` is
not written yet; any other exception raises, the learner's own traceback and all.

>>> from micrograd import Value
>>> result = check_engine(Value, only=["+", "backward"], quiet=True)
>>> result.verdict, result.verdict_of("backward: accumulation (+=)")
('RIGHT', 'RIGHT')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from . import engine_lines as lines_of
from . import isolation
from .engine_cases import LECTURE, OPS
from .engine_eval import NotWrittenYetError, RaisedError, number
from .result import CheckLine, EngineResult, report
from .time_limit import Interrupted, time_limit

PARTS = [*OPS, "backward", "lecture", "MLP", "microgpt"]

__all__ = ["PARTS", "check_engine"]


def check_engine(
    value_class: Any,
    *,
    only: str | Sequence[str] | None = None,
    quiet: bool = False,
    timeout: float | None = 10.0,
) -> EngineResult:
    """Grade your own ``Value`` class (the class itself) against this engine's.

    ``only``: the parts to show, some of ``check_engine.parts`` (an op such as ``"+"`` or
    ``"tanh"``, ``"backward"``, ``"lecture"``, ``"MLP"``, ``"microgpt"``); all by default.
    ``quiet``: print nothing (in Jupyter the table shows).  ``timeout``: seconds each line may
    run (None: no limit).  The result's ``verdict`` is WRONG, TIMED OUT, NOT WRITTEN YET, RIGHT SO
    FAR (right, with ``result.missing`` not written yet) or RIGHT; ``result.verdict_of(line)``
    gives one line's.

    >>> class Value:
    ...     def __init__(self, data):
    ...         self.data, self.grad = data, 0.0
    >>> check_engine(Value, quiet=True).verdict
    'NOT WRITTEN YET'
    >>> check_engine(42)
    Traceback (most recent call last):
    ...
    TypeError: check_engine wants your Value class itself, as in check_engine(Value); got the int 42
    """
    check_class(value_class)
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf
    ):
        raise ValueError(
            f"check_engine: timeout must be a positive number of seconds or None, got {timeout!r}"
        )
    parts = parse_only(only)
    name = value_class.__name__
    try:
        found = grade(value_class, parts, None if timeout is None else float(timeout))
    except Exception as exc:  # a broken call: the learner's own exception, traceback and all
        if hasattr(exc, "add_note"):  # Python 3.11+
            exc.add_note(f"(raised while micrograd.exercises.check_engine graded {name})")
        raise
    shown = [line for line in found if part_of(line.check) in parts]
    result = EngineResult(name, shown, missing=missing_of(shown))
    if not quiet:
        report(result)
    return result


check_engine.parts = PARTS  # type: ignore[attr-defined]


def check_class(value_class: Any) -> None:
    """A clear TypeError unless ``value_class`` is a class making Values: ``cls(2.0).data == 2.0``."""
    if not isinstance(value_class, type):
        kind = type(value_class).__name__
        got = (
            f"a {kind} instance (pass the class: check_engine({kind}))"
            if hasattr(value_class, "data")
            else (f"the {kind} {value_class!r}")
        )
        raise TypeError(f"check_engine wants your Value class itself, as in check_engine(Value); got {got}")
    name = value_class.__name__
    try:
        v = value_class(2.0)
    except NotImplementedError:
        raise TypeError(
            f"check_engine: {name}(2.0) raised NotImplementedError: write __init__ first"
        ) from None
    except Exception as exc:
        raise TypeError(
            f"check_engine: {name}(2.0) raised {type(exc).__name__}: {exc}; your class must take "
            "the number as its first argument"
        ) from exc
    if getattr(v, "data", None) != 2.0 or not hasattr(v, "grad"):
        raise TypeError(
            f"check_engine: {name}(2.0) must keep 2.0 in .data and have a .grad (0 to start); got "
            f".data = {number(getattr(v, 'data', 'nothing'))}, .grad = {getattr(v, 'grad', 'nothing')!r}"
        )


def parse_only(only: str | Sequence[str] | None) -> list[str]:
    if only is None:
        return list(PARTS)
    names = [only] if isinstance(only, str) else only
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"check_engine: only must be a part's name or a list of them, got {only!r}")
    canonical = {p.lower(): p for p in PARTS}
    unknown = [n for n in names if n.lower() not in canonical]
    if unknown:
        raise ValueError(f"check_engine: no part {unknown[0]!r}; the parts are {', '.join(PARTS)}")
    return [canonical[n.lower()] for n in names]


def part_of(check: str) -> str:
    return check.split(":")[0] if ":" in check else check


def missing_of(lines: list[CheckLine]) -> list[str]:
    """What the TODO lines say is not written yet, in order, each once."""
    found: list[str] = []
    for line in lines:
        if line.status == "TODO" and line.message.startswith(lines_of.NOT_YET):
            names = line.message[len(lines_of.NOT_YET) :].split(" (")[0].split(", ")
            found += [n for n in names if n not in found]
        elif line.status == "TODO" and "backward()" not in found:
            found.append("backward()")  # the forward was right, its gradients await backward()
    return found


def grade(cls: type, parts: list[str], seconds: float | None) -> list[CheckLine]:
    """The lines: in a child process that can be killed when there is a time limit and Linux's
    fork (an ``except:`` in the learner's code cannot swallow that stop), else here."""
    if seconds is None or not isolation.available():
        return Grader(cls, parts, seconds).run()
    outcome = isolation.run(lambda heartbeat: Grader(cls, parts, seconds, heartbeat).run(), seconds)
    if isinstance(outcome, isolation.Stopped):
        return [*outcome.lines, timeout_line(outcome.what, seconds)]
    if isinstance(outcome, isolation.Failed):
        # The learner's code raised in the child: grade again here, so that what is raised is the
        # learner's own exception with its traceback (the same code raises again).
        return Grader(cls, parts, seconds).run()
    lines: list[CheckLine] = outcome
    return lines


def timeout_line(check: str, seconds: float) -> CheckLine:
    return CheckLine(
        "TIMEOUT",
        check,
        f"ran longer than {seconds:g} s and was stopped",
        "an endless loop (backward()'s walk over the graph revisiting nodes?), or pass a larger timeout=... "
        "if it is only slow",
    )


class Grader:
    """Runs the lines in order, each under the time limit, keeping each line's status for the
    lines that depend on it (accumulation needs + or * right, a model the ops it uses)."""

    def __init__(self, cls: type, parts: list[str], seconds: float | None, watch: Any = None) -> None:
        self.cls, self.parts, self.seconds, self.watch = cls, parts, seconds, watch
        self.lines: list[CheckLine] = []
        if watch is not None:
            watch.lines = self.lines  # the parent reports them if it must stop the child
        self.status: dict[str, str] = {}

    def run(self) -> list[CheckLine]:
        cls, status = self.cls, self.status
        for op in OPS:  # always: what comes after depends on them
            self.line(op, partial(lines_of.op_line, cls, op))
        if "backward" in self.parts:
            self.line("backward: seed", lambda: lines_of.seed_line(cls))
            self.line("backward: accumulation (+=)", lambda: lines_of.accumulation_line(cls, status))
            self.line("backward: topological order", lambda: lines_of.topological_line(cls, status))
            self.line("backward: zeroing", lambda: lines_of.zeroing_line(cls, status))
        if "lecture" in self.parts:
            for expr in LECTURE:
                self.line(f"lecture: {expr.title}", partial(lines_of.lecture_line, cls, expr))
        if "MLP" in self.parts:
            self.line("MLP: training step", lambda: lines_of.mlp_line(cls, status))
        if "microgpt" in self.parts:
            self.line(
                "microgpt: forward",
                lambda: lines_of.microgpt_lines(cls, status),
                later=["microgpt: backward"],
            )
        return self.lines

    def line(
        self, check: str, make: Callable[[], CheckLine | list[CheckLine]], later: Sequence[str] = ()
    ) -> None:
        """Add ``make()``'s line(s): TODO when it meets what is not written, TIMEOUT when it runs
        out of time, WRONG when the learner's code raised an arithmetic error."""
        if self.watch is not None:
            self.watch.started(check, (), ())
        made: CheckLine | list[CheckLine]
        try:
            with time_limit(self.seconds):
                made = make()
        except NotWrittenYetError as exc:
            made = [lines_of.todo(c, exc) for c in (check, *later)]
        except RaisedError as broke:
            where = f" in `{broke.raised.line}`" if broke.raised.line else ""
            made = CheckLine("WRONG", check, f"your code raised {broke.raised}{where}")
        except Interrupted:
            made = [timeout_line(check, self.seconds or 0.0)]
        finally:
            if self.watch is not None:
                self.watch.ended()
        for line in made if isinstance(made, list) else [made]:
            self.lines.append(line)
            self.status[line.check] = line.status
