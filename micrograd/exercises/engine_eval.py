"""Running an expression of ``engine_cases`` on a learner's ``Value`` class and on ours, and
finding the first node where they differ: its value on the way forward (in the order the
nodes were made), else its gradient (from the output back, so the node found is the first one
whose users were all right: the mistake is in the rules that feed it).

The learner's exceptions are handled as ``check`` handles them: ``NotImplementedError`` (or a
method that is not there) is not written yet, Python's arithmetic errors at these ordinary
points are wrong answers (with the learner's line), anything else is a bug that raises.

>>> from micrograd.engine import Value
>>> from micrograd.exercises.engine_cases import LECTURE
>>> compare(Value, LECTURE[0]) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..engine import Value
from . import formulas
from .engine_cases import BINARY, Expr, needs_all
from .running import Raised, is_arithmetic, raised_at

FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "relu": lambda x: x.relu(),
    "log": lambda x: x.log(),
}
_HERE = str(Path(__file__).resolve().parent)


class NotWrittenYetError(Exception):
    """A method the learner has not written yet: not there, or raising NotImplementedError.
    ``forward_right``: the forward was checked and right, only the gradients were not."""

    def __init__(self, method: str, forward_right: bool = False) -> None:
        super().__init__(method)
        self.method, self.forward_right = method, forward_right


@dataclass
class Mismatch:
    """The first node where the learner's expression differs from ours."""

    kind: str  # "forward", "grad", "not a Value" or "raised"
    node: str
    got: Any
    want: float
    raised: Raised | None = None

    def __str__(self) -> str:
        if self.raised is not None:
            return (
                f"raised {self.raised} in `{self.raised.line}`"
                if self.raised.line
                else f"raised {self.raised}"
            )
        if self.kind == "not a Value":
            return f"{self.node} is {self.got!r}, not a Value (a `return out` missing?)"
        what = f"{self.node}.data" if self.kind == "forward" else f"{self.node}.grad"
        return f"{what} is {number(self.got)}, should be {number(self.want)}"


def number(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, (int, float)) else repr(x)


def close(got: Any, want: float) -> bool:
    """Whether the learner's number is ours, up to the rounding of another order of operations."""
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)


def has(cls: type, method: str) -> bool:
    return callable(getattr(cls, method, None))


def is_value(x: Any) -> bool:
    """Whether an op's result looks like a Value (``backward`` may not be written yet)."""
    return hasattr(x, "data") and hasattr(x, "grad")


T = TypeVar("T")


class RaisedError(Exception):
    """The learner's code raised an arithmetic error at an ordinary point: a wrong answer."""

    def __init__(self, raised: Raised) -> None:
        super().__init__(str(raised))
        self.raised = raised


def learner(call: Callable[[], T], cls: type | None = None) -> T:
    """Run the learner's code: NotWrittenYetError for NotImplementedError, or for an operator of
    ``cls`` not there yet that its own code uses (``__sub__`` written with ``*`` before ``__mul__``
    is); RaisedError for Python's arithmetic errors."""
    try:
        return call()
    except NotImplementedError as exc:
        raise NotWrittenYetError(written_in(exc)) from None
    except TypeError as exc:
        method = missing_operator(exc, cls)
        if method is None:
            raise
        raise NotWrittenYetError(method) from None
    except (ArithmeticError, ValueError) as exc:
        if not is_arithmetic(exc):
            raise
        raise RaisedError(raised_at(exc)) from None


def missing_operator(exc: TypeError, cls: type | None) -> str | None:
    """The method of ``cls`` that Python looked for and did not find, from its TypeError
    (``unsupported operand type(s) for *: 'Value' and 'float'``), or None."""
    text, name = str(exc), f"'{getattr(cls, '__name__', '')}'"
    if cls is None:
        return None
    if text == f"bad operand type for unary -: {name}":
        return None if has(cls, "__neg__") else "__neg__"
    if not text.startswith("unsupported operand type(s) for ") or ": " not in text:
        return None
    symbol, operands = text[len("unsupported operand type(s) for ") :].split(": ", 1)
    methods = {s: (m, r) for s, m, r in BINARY.values()}.get(symbol.split(" or ")[0])
    left, _, right = operands.partition(" and ")
    if methods is None or name not in (left, right):
        return None
    method = methods[0] if left == name else methods[1]
    return None if has(cls, method) else method


def written_in(exc: BaseException) -> str:
    """The learner's function that raised (the innermost frame outside this package)."""
    name, tb = "backward", exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not str(Path(code.co_filename).resolve()).startswith(_HERE) and code.co_name != "<module>":
            name = code.co_name
        tb = tb.tb_next
    return name


def build(cls: type, expr: Expr) -> dict[str, Any]:
    """The expression's nodes by name, built with ``cls``; a line whose result is not a Value
    stops there (its node holds what it returned)."""
    nodes: dict[str, Any] = {name: cls(value) for name, value in expr.leaves.items()}
    for name, formula in expr.formulas.items():
        scope = dict(nodes)
        tree = formulas.parse(formula)
        nodes[name] = learner(lambda t=tree, s=scope: formulas.evaluate(t, s, FUNCTIONS), cls)  # type: ignore[misc]
        if not is_value(nodes[name]):
            break
    return nodes


def reference(expr: Expr) -> dict[str, Value]:
    nodes = build(Value, expr)
    nodes[expr.names[-1]].backward()
    return nodes


def compare(cls: type, expr: Expr) -> Mismatch | None:
    """The first node where ``cls`` differs from ours on ``expr`` (None: none).  NotWrittenYetError
    when a method it needs is not there or raises NotImplementedError."""
    missing = [m for m in needs_all(expr) if not has(cls, m)]
    if missing:
        raise NotWrittenYetError(missing[0])
    ours = reference(expr)
    try:
        mine = build(cls, expr)
    except RaisedError as broke:
        return Mismatch("raised", expr.names[-1], None, 0.0, broke.raised)
    for name in expr.names:
        if not is_value(mine.get(name)):
            return Mismatch("not a Value", f"{name} = {expr.formulas[name]}", mine.get(name), 0.0)
        if not close(mine[name].data, ours[name].data):
            return Mismatch("forward", name, mine[name].data, ours[name].data)
    try:
        backward_of(cls, mine[expr.names[-1]])
    except RaisedError as broke:
        return Mismatch("raised", expr.names[-1], None, 0.0, broke.raised)
    for name in reversed(expr.names):
        if not close(mine[name].grad, ours[name].grad):
            return Mismatch("grad", name, mine[name].grad, ours[name].grad)
    return None


def backward_of(cls: type, out: Any) -> None:
    """Call the learner's ``backward()`` on ``out``: the forward was right when it is not written."""
    if not has(cls, "backward"):
        raise NotWrittenYetError("backward", forward_right=True)
    try:
        learner(out.backward, cls)
    except NotWrittenYetError as todo:
        raise NotWrittenYetError(todo.method, forward_right=True) from None
