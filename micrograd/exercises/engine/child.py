"""What runs the learner's ``Value`` class for ``check_engine``: each job (a case of the table)
run on the class, and its raw numbers, as plain data: the nodes' values and gradients, what the
class raised, and which of its methods ran.  Nothing here decides anything: the parent compares
these numbers with its own references (``lines``).

On Linux this runs in a forked child.  After each call of the learner's code the child puts
back ``builtins``, ``math`` and the recursion limit as they were, so that a learner who patches
them breaks their own code, not the child's bookkeeping.

>>> from micrograd import Value
>>> from micrograd.exercises.engine.cases import OP_CASES
>>> answer = run_expr(Value, OP_CASES["*"][0], {})
>>> answer["data"], answer["back"]["grad"]
([2.0, -3.0, -6.0], [-3.0, 2.0, 1.0])
"""

from __future__ import annotations

import builtins
import inspect
import math
import operator
import sys
import time
import traceback
import types
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import methodcaller
from typing import Any, TypeVar

from .. import formulas
from ..running import is_arithmetic, raised_at
from ..time_limit import Interrupted, time_limit
from . import models
from .cases import BINARY, UNARY_METHODS, ZEROING, Expr
from .evaluate import class_problem, missing_operator, written_in

__all__ = ["METHODS", "Job", "answers", "run_expr"]

METHODS = [m for _, plain, reflected in BINARY.values() for m in (plain, reflected)]
METHODS += ["__neg__", *UNARY_METHODS, "backward"]
MOST_TEXT = 2000  # characters of a message or a line of code sent; a traceback gets 10 times more


@dataclass(eq=False)
class Job:
    """One case: ``kind`` is "expr" (with ``expr``), "seed", "zeroing", "mlp" or "gpt"."""

    kind: str
    title: str
    expr: Expr | None = None


def has(cls: type, method: str) -> bool:
    return callable(getattr(cls, method, None))


def number(x: Any) -> float | str:
    """A learner's number as sent: a float, or the repr of what it is instead."""
    if type(x) in (int, float) and (type(x) is float or abs(x) < 2**53):
        return float(x)
    try:
        return repr(x)[:200]
    except Exception:
        return f"a {type(x).__name__}"


def failure(exc: BaseException, cls: type) -> dict[str, Any]:
    """What the learner's code raised: not written yet, an arithmetic error (a wrong answer),
    out of time, or broken (the parent raises it, as the learner's own exception)."""
    settled(None)
    if isinstance(exc, Interrupted):
        return {"timeout": True}
    if isinstance(exc, NotImplementedError):
        return {"todo": written_in(exc)}
    if isinstance(exc, TypeError) and missing_operator(exc, cls) is not None:
        return {"todo": missing_operator(exc, cls)}
    if isinstance(exc, RecursionError) or (
        isinstance(exc, (ArithmeticError, ValueError)) and is_arithmetic(exc)
    ):
        raised = raised_at(exc)
        return {"raised": [raised.error, raised.message[:MOST_TEXT], raised.line[:MOST_TEXT]]}
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {"broke": [type(exc).__name__, str(exc)[:MOST_TEXT], text[-10 * MOST_TEXT :]]}


# ---- which of the learner's methods ran ------------------------------------------------------


def learner_codes(cls: type) -> dict[types.CodeType, str]:
    """The code of each of the class's functions, by label: ``__pow__``, and the functions
    defined inside one, ``__pow__'s _backward``."""
    codes: dict[types.CodeType, str] = {}
    for klass in reversed(cls.__mro__[:-1]):
        for name, attr in vars(klass).items():
            code = getattr(getattr(attr, "__func__", attr), "__code__", None)
            if isinstance(code, types.CodeType):
                codes[code] = name
                inner = [c for c in code.co_consts if isinstance(c, types.CodeType)]
                codes.update({c: f"{name}'s {c.co_name}" for c in inner})
    return codes


def code_lines(codes: dict[types.CodeType, str]) -> dict[str, str]:
    """Each inner function's body as the learner wrote it, on one line (for the hints)."""
    found: dict[str, str] = {}
    for code, label in codes.items():
        if "'s " not in label:
            continue
        try:
            lines = inspect.getsourcelines(code)[0][1:]
        except (OSError, TypeError):
            continue
        found[label] = "; ".join(line.strip() for line in lines if line.strip())[:MOST_TEXT]
    return found


@contextmanager
def tracing(codes: dict[types.CodeType, str]) -> Iterator[list[str]]:
    """The labels of the learner's functions called in the block, in order, each once."""
    ran: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        label = codes.get(frame.f_code) if event == "call" else None
        if label is not None and label not in ran:
            ran.append(label)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield ran
    finally:
        sys.setprofile(previous)


# ---- the learner's patches undone -------------------------------------------------------------


T = TypeVar("T")
_any, _len, _map, _is_not, _setrecursionlimit = any, len, map, operator.is_not, sys.setrecursionlimit
GUARD: list[Guard] = []  # in the child: the state to put back after each call of the learner's code


def settled(x: T) -> T:
    """``x``, once ``builtins``, ``math`` and the recursion limit are put back (in the child)."""
    for guard in GUARD:
        guard.restore()
    return x


class Guard:
    """``builtins``, ``math`` and the recursion limit as they were, put back by ``restore()``."""

    def __init__(self) -> None:
        self.saved = [(m.__dict__, dict(m.__dict__)) for m in (builtins, math)]
        self.order = [(list(then), list(then.values())) for _, then in self.saved]
        self.limit = sys.getrecursionlimit()

    def restore(self) -> None:
        # Each name and value compared by identity, in order, at C speed (check calls this after
        # every call of the learner's op), with functions taken at import: a learner who
        # replaced ``any`` or ``len`` cannot make the check pass.
        for (now, then), (names, values) in zip(self.saved, self.order):
            if (
                _len(now) != _len(then)
                or _any(_map(_is_not, now, names))
                or _any(_map(_is_not, now.values(), values))
            ):
                now.clear()
                now.update(then)
        _setrecursionlimit(self.limit)


# ---- the jobs ---------------------------------------------------------------------------------

FUNCTIONS: dict[str, Callable[[Any], Any]] = {name: methodcaller(name) for name in UNARY_METHODS}


def run_expr(cls: type, expr: Expr, codes: dict[types.CodeType, str]) -> dict[str, Any]:
    """The expression built with ``cls``: each node's value as far as it got, what stopped it,
    then backward()'s gradients (or what stopped it), with the methods that ran in each."""
    missing = [m for m in expr.needed if not has(cls, m)]
    if missing:
        return {"todo": missing[0]}
    nodes: dict[str, Any] = {}
    with tracing(codes) as ran:
        try:
            for name, value in expr.leaves.items():
                nodes[name] = settled(cls(value))
            for name, tree in expr.trees.items():
                nodes[name] = settled(formulas.evaluate(tree, dict(nodes), FUNCTIONS))
                if not (hasattr(nodes[name], "data") and hasattr(nodes[name], "grad")):
                    return {
                        "data": datas(nodes, name),
                        "not_value": [name, str(number(nodes[name]))],
                        "ran": ran,
                    }
        except BaseException as exc:
            return {**failure(exc, cls), "data": datas(nodes), "ran": ran}
    return {"data": datas(nodes), "ran": ran, "back": run_backward(cls, expr, nodes, codes)}


def datas(nodes: dict[str, Any], but: str = "") -> list[float | str]:
    return [number(getattr(v, "data", None)) for k, v in nodes.items() if k != but]


def run_backward(
    cls: type, expr: Expr, nodes: dict[str, Any], codes: dict[types.CodeType, str]
) -> dict[str, Any]:
    if not has(cls, "backward"):
        return {"todo": "backward"}
    with tracing(codes) as ran:
        try:
            settled(nodes[expr.names[-1]].backward())
        except BaseException as exc:
            return {**failure(exc, cls), "ran": ran}
    return {"grad": [number(getattr(nodes[n], "grad", None)) for n in expr.names], "ran": ran}


def run_seed(cls: type) -> dict[str, Any]:
    if not has(cls, "backward"):
        return {"todo": "backward"}
    x = cls(3.0)
    x.backward()
    return {"grad": number(x.grad)}


def run_zeroing(cls: type) -> dict[str, Any]:
    """a * b's gradients after one backward(), after a second one, and on a new graph after
    ``a.grad = b.grad = 0``."""
    a, b = (cls(v) for v in ZEROING.leaves.values())
    c = a * b
    c.backward()
    once = [number(a.grad), number(b.grad)]
    c.backward()
    twice = [number(a.grad), number(b.grad)]
    a.grad = b.grad = 0
    (a * b).backward()
    return {"once": once, "twice": twice, "fresh": [number(a.grad), number(b.grad)]}


def run_mlp(cls: type) -> dict[str, Any]:
    """The MLP step with each nonlinearity the class has."""
    runs = {}
    for nonlinearity in ("tanh", "relu"):
        if has(cls, nonlinearity):
            try:
                loss, grads, after = models.mlp_step(cls, settled(nonlinearity))
                runs[nonlinearity] = {
                    "loss": number(loss),
                    "grads": [number(g) for _, g in grads],
                    "after": number(after),
                }
            except Interrupted:
                raise
            except BaseException as exc:
                runs[nonlinearity] = failure(exc, cls)
    return {"runs": runs}


def run_gpt(cls: type) -> dict[str, Any]:
    weights = models.gpt_weights(cls)
    loss = models.gpt_loss(weights, models.gpt_tokens())
    answer: dict[str, Any] = {"loss": number(loss.data)}
    try:
        loss.backward()
    except Interrupted:
        raise
    except BaseException as exc:
        return {**answer, "back": failure(exc, cls)}
    return {**answer, "back": {"grad": [number(g) for _, g in models.gpt_grads(weights)]}}


RUNS: dict[str, Callable[[type], dict[str, Any]]] = {
    "seed": run_seed,
    "zeroing": run_zeroing,
    "mlp": run_mlp,
    "gpt": run_gpt,
}


def run_job(cls: type, job: Job, codes: dict[types.CodeType, str]) -> dict[str, Any]:
    if job.expr is not None:
        return run_expr(cls, job.expr, codes)
    try:
        return RUNS[job.kind](cls)
    except BaseException as exc:
        return failure(exc, cls)


def class_info(cls: type) -> dict[str, Any]:
    """The class's methods and their inner functions' code, or why ``cls(2.0)`` is no Value."""
    problem = settled(class_problem(cls))
    codes = learner_codes(cls)
    return {"problem": problem, "has": [m for m in METHODS if has(cls, m)], "code": code_lines(codes)}


def answers(
    cls: type, jobs: list[Job], seconds: float | None, guard: Guard | None = None, deadline: float = math.inf
) -> Generator[dict[str, Any], None, None]:
    """The messages: the class's info, then for each job its start and its answer, each job under
    ``seconds`` and before ``deadline`` (a job out of time answers ``{"timeout": true}``)."""
    if guard is not None:
        GUARD[:] = [guard]
    yield {"class": limited(lambda: class_info(cls), seconds, deadline, guard)}
    codes = learner_codes(cls)
    for k, job in enumerate(jobs):
        yield {"start": k}
        yield {**limited(lambda job=job: run_job(cls, job, codes), seconds, deadline, guard), "k": k}  # type: ignore[misc]


def limited(
    run: Callable[[], dict[str, Any]], seconds: float | None, deadline: float, guard: Guard | None
) -> dict[str, Any]:
    """``run()`` under the time limit, then the learner's patches undone."""
    left = deadline - time.monotonic()
    if left < math.inf:
        seconds = max(min(seconds or math.inf, left), 0.001)
    try:
        with time_limit(seconds):
            return run()
    except Interrupted:
        return {"timeout": True}
    finally:
        if guard is not None:
            guard.restore()
