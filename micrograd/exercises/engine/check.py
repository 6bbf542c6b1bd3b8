"""``check_engine(Value)``: grade a learner's own micrograd ``Value`` class, written from scratch,
against this engine.

It builds expressions with the learner's class and compares every node's value and gradient
with the references (``refs``: this package's rules as they were when it was imported,
whatever the learner patched since), one line per op, per part of ``backward()`` and per model
(``lines``):

* each op it has, of ``+ - * / **``, ``exp``, ``tanh``, ``relu`` and ``log``, at ordinary points,
  fed into itself, and where the rules are easiest to get wrong (relu at 0, powers 0, 1 and
  negative, tanh and exp at large inputs, division by a negative): RIGHT, WRONG (the expression,
  the node, both numbers and the learner's own method to look at) or NOT WRITTEN YET;
* ``backward()``'s structure: the seed (``self.grad = 1``), accumulation (``a + a``: ``+=``, not
  ``=``), topological order (a reused non-leaf node) and zeroing (a second ``backward()`` adds
  the gradients again, as micrograd 0.1.0 and PyTorch do);
* the lecture's expressions, an MLP training step and microgpt's forward and backward on one
  name, each built from the learner's ops (what a model needs and is missing is named).

The learner's code runs in a forked child on Linux (``run``), which sends back raw numbers
only; this process, where the learner's code never runs, compares them and decides.  Each line is
printed as it is decided.  Each case runs under ``timeout`` seconds and the whole under
``total_timeout``; ``NotImplementedError`` is not written yet; any other exception raises, with
the learner's own traceback in a note.

>>> from micrograd import Value
>>> result = check_engine(Value, only=["+", "backward"], quiet=True)
>>> result.verdict, result.verdict_of("backward: accumulation (+=)")
('RIGHT', 'RIGHT')
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..result import CheckLine, EngineResult, Progress
from . import lines as lines_of
from . import refs
from .cases import ACCUMULATION, LECTURE, OP_CASES, OPS, TOPOLOGICAL
from .child import Job
from .evaluate import BrokeError, NotWrittenYetError, RaisedError, TimedOutError
from .run import Reader, StoppedError

PARTS = [*OPS, "backward", "lecture", "MLP", "microgpt"]

__all__ = ["PARTS", "check_engine"]


def check_engine(
    value_class: Any,
    *,
    only: str | Sequence[str] | None = None,
    quiet: bool = False,
    timeout: float | None = 10.0,
    total_timeout: float | None = 300.0,
) -> EngineResult:
    """Grade your own ``Value`` class (the class itself) against this engine's.

    ``only``: the parts to show, some of ``check_engine.parts`` (an op such as ``"+"`` or
    ``"tanh"``, ``"backward"``, ``"lecture"``, ``"MLP"``, ``"microgpt"``); all by default.
    ``quiet``: print nothing (else each line is printed as it is decided; in Jupyter a table
    grows).  ``timeout``: seconds each case may run (None: no limit, and the class runs in this
    process).  ``total_timeout``: seconds for the whole (None: no limit); past it the verdict is
    TIMED OUT, with the lines decided so far.  The result's ``verdict`` is WRONG, TIMED OUT, NOT
    WRITTEN YET, RIGHT SO FAR (right, with ``result.missing`` not written yet) or RIGHT;
    ``result.verdict_of(line)`` gives one line's.

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
    for name, seconds in (("timeout", timeout), ("total_timeout", total_timeout)):
        check_seconds(name, seconds)
    parts = parse_only(only)
    plan = make_plan(parts)
    prepare(plan)  # every reference, before any of the learner's code runs
    result = EngineResult(class_name(value_class), [])
    progress = Progress(result, quiet)
    grade(value_class, plan, parts, progress, timeout, total_timeout)
    result.missing = missing_of(result.lines)
    progress.done()
    return result


check_engine.parts = PARTS  # type: ignore[attr-defined]


def class_name(cls: type) -> str:
    """The class's name as Python keeps it (not through a metaclass of the learner's)."""
    return str(type.__dict__["__name__"].__get__(cls, type))


def check_class(value_class: Any) -> None:
    """A clear TypeError unless ``value_class`` is a class (whether it makes Values is asked of it
    where its code runs)."""
    if not isinstance(value_class, type):
        kind = type(value_class).__name__
        got = (
            f"a {kind} instance (pass the class: check_engine({kind}))"
            if hasattr(type(value_class), "data") or "data" in getattr(value_class, "__dict__", {})
            else f"the {kind} {value_class!r}"
        )
        raise TypeError(f"check_engine wants your Value class itself, as in check_engine(Value); got {got}")


def check_seconds(name: str, seconds: Any) -> None:
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf
    ):
        raise ValueError(
            f"check_engine: {name} must be a positive number of seconds or None, got {seconds!r}"
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


# ---- the plan: each line, the cases it needs, and how it is decided ---------------------------

Decide = Callable[[lines_of.Seen, list[dict[str, Any]]], CheckLine | list[CheckLine]]


@dataclass
class Line:
    check: str
    jobs: list[Job]
    decide: Decide
    later: tuple[str, ...] = ()  # the line(s) decided with it (microgpt's backward)


def expr_jobs(*exprs: Any) -> list[Job]:
    return [Job("expr", f"{expr.title} ({expr.at})", expr) for expr in exprs]


def make_plan(parts: list[str]) -> list[Line]:
    """The lines in order: every op (what comes after depends on them), then the parts asked for."""
    plan = [Line(op, expr_jobs(*OP_CASES[op]), partial(op_line, op)) for op in OPS]
    if "backward" in parts:
        plan += [
            Line("backward: seed", [Job("seed", "x.backward() on a lone Value")], first(lines_of.seed_line)),
            Line(
                "backward: accumulation (+=)", expr_jobs(*ACCUMULATION.values()), lines_of.accumulation_line
            ),
            Line("backward: topological order", expr_jobs(TOPOLOGICAL), first(lines_of.topological_line)),
            Line(
                "backward: zeroing",
                [Job("zeroing", "c = a * b, backward() twice")],
                first(lines_of.zeroing_line),
            ),
        ]
    if "lecture" in parts:
        plan += [
            Line(f"lecture: {e.title}", expr_jobs(e), first(partial(lines_of.lecture_line, expr=e)))
            for e in LECTURE
        ]
    if "MLP" in parts:
        plan.append(
            Line("MLP: training step", [Job("mlp", "the MLP's training step")], first(lines_of.mlp_line))
        )
    if "microgpt" in parts:
        gpt = [Job("gpt", "microgpt on one name")]
        plan.append(Line("microgpt: forward", gpt, first(lines_of.microgpt_lines), ("microgpt: backward",)))
    return plan


def op_line(op: str, seen: lines_of.Seen, answers: list[dict[str, Any]]) -> CheckLine:
    return lines_of.op_line(seen, op, answers)


def first(decide: Callable[..., Any]) -> Decide:
    """A line decided from its one case's answer."""
    return lambda seen, answers: decide(seen, answer=answers[0])


def prepare(plan: list[Line]) -> None:
    """Compute (and keep) every reference the plan compares with."""
    for line in plan:
        for job in line.jobs:
            if job.expr is not None:
                refs.expr_reference(job.expr)
            elif job.kind == "mlp":
                refs.mlp_reference("tanh"), refs.mlp_reference("relu")
            elif job.kind == "gpt":
                refs.gpt_reference()


# ---- grading: answers in, lines out ------------------------------------------------------------


def grade(
    cls: type,
    plan: list[Line],
    parts: list[str],
    progress: Progress,
    seconds: float | None,
    total: float | None,
) -> None:
    """Run ``cls`` on the plan's cases (``run``) and grade its answers as they come."""
    jobs = [job for line in plan for job in line.jobs]
    with Reader(cls, jobs, None if seconds is None else float(seconds), total) as reader:
        grade_answers(reader, class_name(cls), plan, parts, progress, seconds, total)


def grade_answers(
    reader: Reader,
    name: str,
    plan: list[Line],
    parts: list[str],
    progress: Progress,
    seconds: float | None,
    total: float | None,
) -> None:
    """Read the answers case by case, decide each line as soon as its cases are in, and show it.
    (``recorded`` calls this too, on answers sent from another process: the playground's lab.)"""
    try:
        info = reader.class_info()
    except StoppedError as stop:
        stop_line = stopped_line(plan[0].check, f"{name}(2.0)", stop, seconds, total)
        show(progress, PARTS, lines_of.Seen(name, set()), [stop_line])
        return
    if info["problem"] is not None:
        raise TypeError(info["problem"])
    seen = lines_of.Seen(name, info["has"], info["code"])
    k = 0
    for line in plan:
        answers: list[dict[str, Any]] = []
        try:
            while len(answers) < len(line.jobs):
                answers.append(reader.answer(k + len(answers)))
        except StoppedError as stop:
            case = line.jobs[len(answers)].title
            # shown whatever the parts asked for: nothing after it was decided
            show(progress, PARTS, seen, [stopped_line(line.check, case, stop, seconds, total)])
            return
        k += len(line.jobs)
        show(progress, parts, seen, decided(line, seen, answers, seconds))


def show(progress: Progress, parts: list[str], seen: lines_of.Seen, lines: list[CheckLine]) -> None:
    for line in lines:
        seen.status[line.check] = line.status
        if part_of(line.check) in parts:
            progress.add(line)


def decided(
    line: Line, seen: lines_of.Seen, answers: list[dict[str, Any]], seconds: float | None
) -> list[CheckLine]:
    """The line(s) from the answers: TODO when they meet what is not written, TIMEOUT when a case
    ran out of time, WRONG when the learner's code raised an arithmetic error."""
    try:
        made = line.decide(seen, answers)
    except NotWrittenYetError as exc:
        return [lines_of.todo(c, exc) for c in (line.check, *line.later)]
    except RaisedError as broke:
        return [CheckLine("WRONG", line.check, f"your code raised {broke}{broke.where}")]
    except TimedOutError:
        return [timeout_line(line.check, seconds or 0.0)]
    except BrokeError as broke:
        raise learner_error(broke.broke, f"graded {seen.name}, on the line {line.check!r}") from None
    return made if isinstance(made, list) else [made]


def learner_error(broke: list[str], where: str) -> Exception:
    """The learner's exception as raised in the process that ran their code: the same built-in
    type and message, with their traceback in a note."""
    kind, message, trace = broke
    found = builtins.__dict__.get(kind)
    exc: Exception
    try:
        exc = (
            found(message)
            if isinstance(found, type) and issubclass(found, Exception)
            else RuntimeError(f"{kind}: {message}")
        )
    except Exception:
        exc = RuntimeError(f"{kind}: {message}")
    if hasattr(exc, "add_note"):  # Python 3.11+
        exc.add_note(f"(raised while micrograd.exercises.check_engine {where}; in your code:)\n{trace}")
    return exc


def timeout_line(check: str, seconds: float) -> CheckLine:
    return CheckLine(
        "TIMEOUT",
        check,
        f"ran longer than {seconds:g} s and was stopped",
        "an endless loop (backward()'s walk over the graph revisiting nodes?), or pass a larger timeout=... "
        "if it is only slow",
    )


def stopped_line(
    check: str, case: str, stop: StoppedError, seconds: float | None, total: float | None
) -> CheckLine:
    """The last line when the reading stopped: out of time, or the learner's engine stopped it."""
    if stop.kind == "timeout":
        return timeout_line(check, seconds or 0.0)
    if stop.kind == "total":
        return CheckLine(
            "TIMEOUT",
            check,
            f"check_engine ran longer than {total:g} s in all and was stopped here; "
            "the lines above were decided",
            "pass a larger total_timeout=... (or fewer parts with only=...)",
        )
    return CheckLine(
        "WRONG",
        check,
        f"your engine stopped the grader at case {case}: {stop.reason}",
        "your class must only compute: exiting, writing to the grader's pipe or changing the grader "
        "stops it, and counts as wrong",
    )
