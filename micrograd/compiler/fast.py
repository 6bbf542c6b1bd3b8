"""Array rules for the replay: an op whose own rule, run on arrays, loops in Python over its
operands, done in a few whole-array numpy calls instead, with the same numbers bit for bit.

``Pick`` (an embedding row or a class's probability chosen by a traced id) compares the label
with each of its ``K`` operands in turn: ``3 K`` numpy calls forward and ``2 K`` backward on
arrays.  ``pick_forward`` and ``pick_backward`` stack the operands and make the same choice
in one comparison.  Used only while the op's rules are the engine's own (a patched rule is
replayed as patched).

>>> import numpy as np
>>> from micrograd._core.context import Context
>>> ctx = Context((False, True, True), ())
>>> pick_forward(ctx, np.array([1.0, 0.0, 5.0]), np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
array([ 4.,  2., nan])
>>> [g.tolist() for g in pick_backward(ctx, np.ones(3))[1:]]
[[-0.0, 1.0, nan], [1.0, -0.0, nan]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.context import Context
from ..engine import Function
from ..ops.basic import Pick
from .errors import load_numpy

Rule = Callable[..., Any]


def pick_forward(ctx: Context, label: Any, *values: Any) -> Any:
    """``Pick.forward`` on arrays: ``values[label]`` per element, nan where the label is no index."""
    np = load_numpy()
    if type(label) is not np.ndarray or any(
        type(v) is not np.ndarray or v.shape != label.shape for v in values
    ):
        ctx.save_for_backward(None)
        return Pick.forward(ctx, label, *values)  # (numbers among the operands: the op's own loop)
    stacked = np.stack(values)
    hit = label == np.arange(len(values), dtype=np.float64).reshape((-1,) + (1,) * label.ndim)
    found = hit.any(axis=0)
    picked = np.take_along_axis(stacked, hit.argmax(axis=0)[None], axis=0)[0]
    missed = np.where(found, -0.0, np.nan)  # the others' gradient, as Pick's
    ctx.save_for_backward(hit, missed)
    return np.where(found, picked, np.nan)


def pick_backward(ctx: Context, g: Any) -> tuple[Any, ...]:
    """``Pick.backward`` on arrays: ``g`` to the picked operand, -0.0 to the others (nan for all
    where the label is no index), the label none."""
    saved = ctx.saved_tensors
    if saved[0] is None:
        return Pick.backward(ctx, g)
    np = load_numpy()
    hit, missed = saved
    return (None, *np.where(hit, g, missed))


def array_rules(fn: type[Function]) -> tuple[Rule, Rule]:
    """The forward and backward a group of ``fn`` runs on arrays: the rules of this module for an
    op they cover whose rules are the engine's own, else the op's ``forward`` and ``backward``."""
    if fn is Pick and Pick.builtin_rules == (Pick.forward, Pick.backward):
        return pick_forward, pick_backward
    return fn.forward, fn.backward
