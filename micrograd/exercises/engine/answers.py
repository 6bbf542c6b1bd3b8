"""What the parent accepts from the process that ran the learner's code: each answer checked
against the shape of the job it answers (how many numbers, which keys), its numbers turned into
floats (or kept as the text of what the learner had instead).  Anything else is ``MalformedError``:
reported as such, never read as right.

>>> from micrograd.exercises.engine.child import Job
>>> read_answer(Job("seed", "x.backward()"), {"grad": 1})
{'grad': 1.0}
>>> read_answer(Job("seed", "x.backward()"), {"grad": 1, "verdict": "RIGHT"})
Traceback (most recent call last):
...
micrograd.exercises.channel.MalformedError: an answer with keys it was not asked for: ['verdict']
"""

from __future__ import annotations

from typing import Any

from ..channel import MalformedError
from . import models
from .child import METHODS, Job

__all__ = ["read_answer", "read_class"]

MOST_TEXT = 30_000
FAILURES = {"todo", "timeout", "broke", "raised"}
_type, _float, _len, _sorted = type, float, len, sorted


def text(x: Any) -> str:
    if _type(x) is not str or _len(x) > MOST_TEXT:
        raise MalformedError("a text that is not one")
    return str(x)


def texts(x: Any, n: int) -> list[str]:
    if _type(x) is not list or _len(x) != n:
        raise MalformedError(f"not a list of {n} texts")
    return [text(t) for t in x]


def num(x: Any) -> float | str:
    """A number (as a float), or the text of what the learner had instead."""
    if _type(x) is str:
        return text(x)
    if _type(x) not in (int, float):
        raise MalformedError(f"a {_type(x).__name__} where a number belongs")
    try:
        return _float(x)
    except OverflowError:
        raise MalformedError("an integer too large for a float") from None


def nums(x: Any, most: int, least: int | None = None) -> list[float | str]:
    least = most if least is None else least
    if _type(x) is not list or not least <= _len(x) <= most:
        raise MalformedError(f"not a list of {most} numbers")
    return [num(v) for v in x]


def keys(answer: Any, allowed: set[str]) -> dict[str, Any]:
    if _type(answer) is not dict:
        raise MalformedError("an answer that is not a record")
    extra = _sorted(k for k in answer if k not in allowed)
    if extra:
        raise MalformedError(f"an answer with keys it was not asked for: {extra}")
    return dict(answer)


def failure(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The failure the answer reports (one of FAILURES), checked, or None."""
    found = [k for k in FAILURES if k in answer]
    if not found:
        return None
    if _len(found) > 1:
        raise MalformedError(f"an answer that both {found[0]} and {found[1]}")
    kind = found[0]
    if kind == "todo":
        return {"todo": text(answer["todo"])}
    if kind == "timeout":
        if answer["timeout"] is not True:
            raise MalformedError("a timeout that is not true")
        return {"timeout": True}
    return {kind: texts(answer[kind], 3)}


def ran(x: Any) -> list[str]:
    if _type(x) is not list or _len(x) > 500:
        raise MalformedError("a list of methods that is not one")
    return [text(t) for t in x]


def read_backward(back: Any, n: int) -> dict[str, Any]:
    back = keys(back, {*FAILURES, "grad", "ran"})
    got = {"ran": ran(back.get("ran", []))}
    stop = failure(back)
    if stop is not None:
        return {**stop, **got}
    return {"grad": nums(back.get("grad"), n), **got}


def read_expr(job: Job, answer: dict[str, Any]) -> dict[str, Any]:
    assert job.expr is not None
    n = _len(job.expr.names)
    answer = keys(answer, {*FAILURES, "data", "not_value", "ran", "back"})
    stop = failure(answer)
    if stop is not None and "todo" in stop and "data" not in answer:
        return stop
    got: dict[str, Any] = {"data": nums(answer.get("data"), n, 0), "ran": ran(answer.get("ran", []))}
    if stop is not None:
        return {**stop, **got}
    if "not_value" in answer:
        name, what = texts(answer["not_value"], 2)
        if name not in job.expr.names[_len(got["data"]) : _len(got["data"]) + 1]:
            raise MalformedError("a node that is not a Value, at the wrong node")
        return {**got, "not_value": [name, what]}
    if _len(got["data"]) != n:
        raise MalformedError(f"{_len(got['data'])} of the {n} nodes' values, and no reason")
    return {**got, "back": read_backward(answer.get("back"), n)}


def read_runs(runs: Any) -> dict[str, Any]:
    runs = keys(runs, {"tanh", "relu"})
    found = {}
    for name, run in runs.items():
        run = keys(run, {*FAILURES, "loss", "grads", "after"})
        stop = failure(run)
        found[name] = (
            stop
            if stop is not None
            else {
                "loss": num(run.get("loss")),
                "grads": nums(run.get("grads"), models.MLP_PARAMS),
                "after": num(run.get("after")),
            }
        )
    return found


def read_other(job: Job, answer: dict[str, Any]) -> dict[str, Any]:
    allowed = {
        "seed": {"grad"},
        "zeroing": {"once", "twice", "fresh"},
        "mlp": {"runs"},
        "gpt": {"loss", "back"},
    }
    answer = keys(answer, {*FAILURES, *allowed[job.kind]})
    stop = failure(answer)
    if stop is not None:
        return stop
    if job.kind == "seed":
        return {"grad": num(answer.get("grad"))}
    if job.kind == "zeroing":
        return {k: nums(answer.get(k), 2) for k in ("once", "twice", "fresh")}
    if job.kind == "mlp":
        return {"runs": read_runs(answer.get("runs"))}
    return {"loss": num(answer.get("loss")), "back": read_backward(answer.get("back"), models.GPT_WEIGHTS)}


def read_answer(job: Job, answer: Any) -> dict[str, Any]:
    """The answer to ``job``, checked and in floats; ``MalformedError`` if it is not one."""
    return read_expr(job, answer) if job.kind == "expr" else read_other(job, answer)


def read_class(info: Any) -> dict[str, Any]:
    """The class's first message: why it is no Value class (or None), its methods, their code."""
    info = keys(info, {"problem", "has", "code"})
    problem = None if info.get("problem") is None else text(info["problem"])
    methods = info.get("has")
    if _type(methods) is not list or not all(m in METHODS for m in methods):
        raise MalformedError("a list of methods that is not one")
    code = keys(info.get("code", {}), set(info.get("code", {})) if _type(info.get("code")) is dict else set())
    return {"problem": problem, "has": set(methods), "code": {text(k): text(v) for k, v in code.items()}}
