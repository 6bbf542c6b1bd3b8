"""The references ``check`` compares the learner's numbers with, computed from the package's own
rules (``references``) for every case before the learner's code runs once: what the learner's
code patches later (``micrograd.Value``, ``math``) cannot reach them.

>>> from micrograd.exercises.references import UNARY
>>> table = reference_table(UNARY["tanh"], [((0.0,), (), True)])
>>> table[0].value, table[0].grads, table[0].hessian
(0.0, [1.0], [[-0.0]])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine import Value
from ..func.reverse import grad
from .op_calls import hessian_rows
from .running import Case, call_op

__all__ = ["Ref", "reference_table"]


@dataclass
class Ref:
    """The reference at one case: its value, its gradient (0.0 for an input it does not use),
    which first derivatives depend on the inputs, and their derivatives."""

    value: float
    grads: list[float]
    nonzero: list[bool]
    hessian: list[list[float]]


def reference_at(reference: Callable[..., Value], pt: tuple[float, ...], ps: tuple[float, ...]) -> Ref:
    rx, rout = call_op(reference, pt, ps)
    firsts: list[Any] = list(grad(rout, rx, create_graph=True, allow_unused=True))
    nonzero = [
        isinstance(g, Value) and any(s is not None and s != 0.0 for s in grad(g, rx, allow_unused=True))
        for g in firsts
    ]
    # the gradient as backward() gives it, without a graph (the two can differ in a zero's sign)
    plain = grad(rout, rx, allow_unused=True)
    grads = [0.0 if g is None else float(g.data if isinstance(g, Value) else g) for g in plain]
    return Ref(float(rout.data), grads, nonzero, hessian_rows(firsts, rx))


def reference_table(reference: Callable[..., Value] | None, cases: list[Case]) -> list[Ref] | None:
    """The reference at every case, or None: no reference (``like=None``)."""
    if reference is None:
        return None
    return [reference_at(reference, pt, ps) for pt, ps, _edge in cases]
