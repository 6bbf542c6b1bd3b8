"""Comparing what a learner's ``Value`` class computed on an expression of ``cases`` (the
raw numbers ``child`` sends) with the reference (``refs``), and finding the first
node where they differ: its value on the way forward (in the order the nodes were made), else
its gradient (from the output back, so the node found is the first one whose users were all
right: the mistake is in the rules that feed it).

The comparison runs in the grader's own process, with functions captured when this module was
imported: a learner who patches ``math.isclose`` patches it where the grader does not look.

>>> from micrograd.exercises.engine.cases import LECTURE
>>> from micrograd.exercises.engine.refs import expr_reference
>>> data, grads = expr_reference(LECTURE[0])
>>> print(mismatch(LECTURE[0], {"data": list(data), "back": {"grad": [0.0, *grads[1:]]}}))
a.grad is 0, should be 6
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cases import BINARY, Expr
from .refs import expr_reference

_isclose, _isnan, _float, _type = math.isclose, math.isnan, float, type
_HERE = str(Path(__file__).resolve().parent)


class NotWrittenYetError(Exception):
    """A method the learner has not written yet: not there, or raising NotImplementedError.
    ``forward_right``: the forward was checked and right, only the gradients were not."""

    def __init__(self, method: str, forward_right: bool = False) -> None:
        super().__init__(method)
        self.method, self.forward_right = method, forward_right


class RaisedError(Exception):
    """The learner's code raised an arithmetic error at an ordinary point: a wrong answer.
    ``raised``: [error, message, the learner's line]."""

    def __init__(self, raised: list[str]) -> None:
        super().__init__(f"{raised[0]}: {raised[1]}")
        self.raised = raised

    @property
    def where(self) -> str:
        return f" in `{self.raised[2]}`" if self.raised[2] else ""


class TimedOutError(Exception):
    """A job ran past the time limit in the learner's code (its process stopped it)."""


class BrokeError(Exception):
    """The learner's code raised something that is a bug, not an answer: [type, message, traceback]."""

    def __init__(self, broke: list[str]) -> None:
        super().__init__(broke[1])
        self.broke = broke


@dataclass
class Mismatch:
    """The first node where the learner's expression differs from ours, and the learner's
    methods that ran for it (forward, or backward for a gradient)."""

    kind: str  # "forward", "grad", "not a Value" or "raised"
    node: str
    got: Any
    want: float
    raised: RaisedError | None = None
    ran: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.raised is not None:
            return f"raised {self.raised}{self.raised.where}"
        if self.kind == "not a Value":
            return f"{self.node} is {self.got}, not a Value (a `return out` missing?)"
        what = f"{self.node}.data" if self.kind == "forward" else f"{self.node}.grad"
        return f"{what} is {number(self.got)}, should be {number(self.want)}"


def number(x: Any) -> str:
    return f"{x:.6g}" if _type(x) in (int, float) else str(x)


def close(got: Any, want: float) -> bool:
    """Whether the learner's number is ours, up to the rounding of another order of operations
    (nan where ours is nan)."""
    if _type(got) not in (int, float):
        return False
    if _isnan(want) or _isnan(got):
        return _isnan(want) and _isnan(got)
    return _isclose(_float(got), want, rel_tol=1e-6, abs_tol=1e-9)


def failed(answer: dict[str, Any], forward_right: bool = False) -> None:
    """Raise what a part of an answer says stopped the learner's code, if anything did."""
    if "todo" in answer:
        raise NotWrittenYetError(answer["todo"], forward_right)
    if "timeout" in answer:
        raise TimedOutError
    if "broke" in answer:
        raise BrokeError(answer["broke"])


def mismatch(expr: Expr, answer: dict[str, Any]) -> Mismatch | None:
    """The first node where the answer differs from the reference (None: none).
    NotWrittenYetError, TimedOutError or BrokeError when the learner's code stopped."""
    data, grads = expr_reference(expr)
    failed(answer)
    got, ran = answer["data"], answer.get("ran", [])
    for i, name in enumerate(expr.names):
        if i == len(got):
            if "not_value" in answer:
                return Mismatch("not a Value", f"{name} = {expr.formulas[name]}", answer["not_value"][1], 0.0)
            return Mismatch("raised", name, None, 0.0, RaisedError(answer["raised"]), ran)
        if not close(got[i], data[i]):
            return Mismatch("forward", name, got[i], data[i], ran=ran)
    back = answer["back"]
    failed(back, forward_right=True)
    if "raised" in back:
        return Mismatch("raised", expr.names[-1], None, 0.0, RaisedError(back["raised"]), back.get("ran", []))
    for i in reversed(range(len(expr.names))):
        if not close(back["grad"][i], grads[i]):
            return Mismatch("grad", expr.names[i], back["grad"][i], grads[i], ran=back.get("ran", []))
    return None


# ---- read in the process that runs the learner's code ----------------------------------------


def class_problem(cls: type) -> str | None:
    """Why ``cls`` makes no Values (``cls(2.0).data == 2.0`` with a ``.grad``), or None."""
    name = cls.__name__
    try:
        v = cls(2.0)
    except NotImplementedError:
        return f"check_engine: {name}(2.0) raised NotImplementedError: write __init__ first"
    except Exception as exc:
        return (
            f"check_engine: {name}(2.0) raised {type(exc).__name__}: {exc}; your class must take "
            "the number as its first argument"
        )
    if getattr(v, "data", None) != 2.0 or not hasattr(v, "grad"):
        return (
            f"check_engine: {name}(2.0) must keep 2.0 in .data and have a .grad (0 to start); got "
            f".data = {number(getattr(v, 'data', 'nothing'))}, .grad = {getattr(v, 'grad', 'nothing')!r}"
        )
    return None


def missing_operator(exc: TypeError, cls: type | None) -> str | None:
    """The method of ``cls`` that Python looked for and did not find, from its TypeError
    (``unsupported operand type(s) for *: 'Value' and 'float'``), or None."""
    text, name = str(exc), f"'{getattr(cls, '__name__', '')}'"
    if cls is None:
        return None
    if text == f"bad operand type for unary -: {name}":
        return None if callable(getattr(cls, "__neg__", None)) else "__neg__"
    if not text.startswith("unsupported operand type(s) for ") or ": " not in text:
        return None
    symbol, operands = text[len("unsupported operand type(s) for ") :].split(": ", 1)
    methods = {s: (m, r) for s, m, r in BINARY.values()}.get(symbol.split(" or ")[0])
    left, _, right = operands.partition(" and ")
    if methods is None or name not in (left, right):
        return None
    method = methods[0] if left == name else methods[1]
    return None if callable(getattr(cls, method, None)) else method


def written_in(exc: BaseException) -> str:
    """The learner's function that raised (the innermost frame outside this package)."""
    name, tb = "backward", exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not str(Path(code.co_filename).resolve()).startswith(_HERE) and code.co_name != "<module>":
            name = code.co_name
        tb = tb.tb_next
    return name
