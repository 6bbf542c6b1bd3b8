"""The answers ``check_engine`` expects, computed with this package's own rules as they were when
it was imported: every op through a frozen copy of its ``Function`` (``references.frozen``), never
through a method of ``micrograd.Value`` looked up when it runs.  The lecture adds a method by
patching the class (``Value.tanh = my_tanh``); a reference that called ``x.tanh()`` would then
compare the learner's tanh with itself.

``Ref`` is a node of the reference: it holds one of this engine's Values and has the operators
and methods the expressions and models use (the models are written for any micrograd-style class).

>>> from micrograd import Value
>>> tanh, Value.tanh = Value.tanh, lambda self: Value(0.0)  # a learner's patch, undone below
>>> data, grads = expr_reference(LECTURE[1])
>>> round(data[-1], 4), round(grads[0], 4)
(0.7071, -1.5)
>>> Value.tanh = tanh
"""

from __future__ import annotations

from functools import cache
from operator import methodcaller
from typing import Any

from ... import ops
from ...engine import (
    Add,
    Mul,
    PowConst,
    ReLU,
    Tanh,
    Value,
    backpropagate,
    binary_method,
    operand,
    unary_method,
)
from .. import formulas
from ..references import frozen
from . import models
from .cases import LECTURE, ZEROING, Expr

__all__ = ["LECTURE", "Ref", "expr_reference", "gpt_reference", "mlp_reference", "zeroing_reference"]

# The ops' rules, copied when this module was imported: later patches of Value or of the ops'
# classes do not reach them.
# (binary_method and unary_method make the nodes as Value's own operators do, at their speed.)
ADD, MUL, SUB, DIV = (binary_method(frozen(fn)) for fn in (Add, Mul, ops.Sub, ops.Div))
POW = frozen(PowConst).apply
NEG = unary_method(frozen(ops.Neg), "")
UNARY = {
    name: unary_method(frozen(fn), "")
    for name, fn in (("exp", ops.Exp), ("tanh", Tanh), ("relu", ReLU), ("log", ops.Log))
}
_backpropagate, _operand = backpropagate, operand


def lift(x: Any) -> Value:
    """A Ref's Value, or a number as a constant of the graph."""
    return x.v if type(x) is Ref else _operand(float(x))


class Ref:
    """A node of the reference, an engine Value behind the frozen rules."""

    __slots__ = ("v",)

    def __init__(self, x: Any) -> None:
        self.v = x if type(x) is Value else _operand(float(x))

    @property
    def data(self) -> float:
        return float(self.v.data)

    @data.setter
    def data(self, x: float) -> None:
        self.v.data = x

    @property
    def grad(self) -> float:
        return float(self.v.grad)

    def __add__(self, o: Any) -> Ref:
        return Ref(ADD(self.v, lift(o)))

    def __radd__(self, o: Any) -> Ref:
        return Ref(ADD(lift(o), self.v))

    def __mul__(self, o: Any) -> Ref:
        return Ref(MUL(self.v, lift(o)))

    def __rmul__(self, o: Any) -> Ref:
        return Ref(MUL(lift(o), self.v))

    def __sub__(self, o: Any) -> Ref:
        return Ref(SUB(self.v, lift(o)))

    def __rsub__(self, o: Any) -> Ref:
        return Ref(SUB(lift(o), self.v))

    def __truediv__(self, o: Any) -> Ref:
        return Ref(DIV(self.v, lift(o)))

    def __rtruediv__(self, o: Any) -> Ref:
        return Ref(DIV(lift(o), self.v))

    def __neg__(self) -> Ref:
        return Ref(NEG(self.v))

    def __pow__(self, n: float) -> Ref:
        return Ref(POW(self.v, float(n)))

    def exp(self) -> Ref:
        return Ref(UNARY["exp"](self.v))

    def tanh(self) -> Ref:
        return Ref(UNARY["tanh"](self.v))

    def relu(self) -> Ref:
        return Ref(UNARY["relu"](self.v))

    def log(self) -> Ref:
        return Ref(UNARY["log"](self.v))

    def backward(self) -> None:
        _backpropagate({self.v: 1.0}, into_grad=True)


FUNCTIONS = {name: methodcaller(name) for name in UNARY}


@cache
def expr_reference(expr: Expr) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Every node's value and gradient, in ``expr.names``' order."""
    nodes: dict[str, Any] = {name: Ref(value) for name, value in expr.leaves.items()}
    for name, tree in expr.trees.items():
        nodes[name] = formulas.evaluate(tree, dict(nodes), FUNCTIONS)
    nodes[expr.names[-1]].backward()
    return tuple(nodes[n].data for n in expr.names), tuple(nodes[n].grad for n in expr.names)


def zeroing_reference() -> tuple[float, float]:
    """d(a * b)/da and d(a * b)/db at ZEROING's leaves: one backward()'s gradients."""
    a, b = ZEROING.leaves.values()
    return b, a


@cache
def mlp_reference(nonlinearity: str) -> tuple[float, tuple[float, ...], float, tuple[str, ...]]:
    """The MLP step's loss, its parameters' gradients, the loss after the step, their names."""
    loss, grads, after = models.mlp_step(Ref, nonlinearity)
    return loss, tuple(g for _, g in grads), after, tuple(n for n, _ in grads)


@cache
def gpt_reference() -> tuple[float, tuple[float, ...], tuple[str, ...]]:
    """microgpt's loss on one name, its weights' gradients and their names."""
    weights = models.gpt_weights(Ref)
    loss = models.gpt_loss(weights, models.gpt_tokens())
    loss.backward()
    named = models.gpt_grads(weights)
    return loss.data, tuple(g for _, g in named), tuple(n for n, _ in named)
