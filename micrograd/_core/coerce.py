"""Turning what users hand the engine into floats, with errors that say what to write instead.

``to_float`` converts a number (int, float, numpy scalar, Fraction) and refuses
anything else clearly; ``forward_result`` and ``checked_gradients`` check what a
user's ``Function`` returned.  This module knows a Value by its graph slot and
does not import the engine (the engine imports it).

>>> to_float(3)
3.0
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any


def is_value(x: object) -> bool:
    """True for a Value (recognised by its graph slot)."""
    return hasattr(x, "_prev") and hasattr(x, "data")


def forward_result(fn: Any, out: Any) -> float:
    """What an op's forward returned, as the float a node holds; a clear TypeError otherwise."""
    if is_value(out):
        raise TypeError(
            f"{fn.name}.forward returned a Value, where a node's data is a number. Either an operand's "
            ".data holds a Value (`p.data = p - lr * p.grad` puts one there: write `p.data -= lr * p.grad`, "
            "numbers, or `p.data = (p - lr * p.grad).data`), or forward computes with Values (it receives "
            "the inputs' numbers: compute with operators and micrograd.math on them)"
        )
    if isinstance(out, (tuple, list)):
        raise TypeError(
            f"{fn.name}.forward returned {type(out).__name__} of {len(out)}; an op returns one number "
            "(a scalar engine: one Value per result; write one Function per output)"
        )
    return to_float(out, f"{fn.name}.forward's result")


def checked_gradients(fn: Any, args: tuple[Any, ...], grads: Any, create_graph: bool) -> list[Any]:
    """An op's gradients, one per Value among ``args`` (what it was applied to), after checking
    their count and type."""
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != len(args):
        raise TypeError(
            f"{fn.name}.backward returned {len(grads)} gradient(s), but forward took {len(args)} input(s): "
            "return one per input, None for an input that gets none"
        )
    result = []
    for k, (a, g) in enumerate(zip(args, grads)):
        if not is_value(a):
            continue  # a number: no gradient
        if g is None or type(g) is float or (create_graph and is_value(g)):
            result.append(g)
        elif is_value(g):
            raise TypeError(
                f"{fn.name}.backward returned a Value for input {k} on the float path; "
                "write it with operators and micrograd.math on its arguments"
            )
        else:
            result.append(to_float(g, f"{fn.name}.backward's gradient for input {k}"))
    return result


def to_float(x: object, what: str = "Value()") -> float:
    """The float a number stands for; a clear TypeError for anything else."""
    if type(x) is float:
        return x
    if type(x) is int or isinstance(x, numbers.Real):  # int, bool, Fraction, numpy floats and ints
        return float(x)
    if is_value(x):
        raise TypeError(
            f"{what} expects a real number, got a Value ({x!r}); use it directly, or x.detach() for a copy"
        )
    if type(x).__module__ == "numpy" and getattr(x, "ndim", None) == 0 and hasattr(x, "__float__"):
        return float(x)  # numpy's bool scalar, which is no numbers.Real
    if type(x).__module__ == "numpy" and getattr(x, "ndim", 0) > 0:
        raise TypeError(
            f"{what} expects a real number, got a numpy array of shape {x.shape}; "  # type: ignore[attr-defined]
            "Values are scalars: build one Value per element (or use micrograd.compile for arrays)"
        )
    raise TypeError(
        f"{what} expects a real number (int, float or numpy scalar), got {type(x).__name__}: {x!r}"
    )


def refuse_floats(fn: Any) -> Callable[[str, str], None]:
    """A hook for ``grad_mode.hear_data_reads`` while ``fn.forward`` runs on Values (for
    ``create_graph``): turning a Value into a Python float there would cut the graph."""

    def refuse(what: str, kind: str) -> None:
        if kind == "convert":
            raise TypeError(
                f"{fn.name}.forward turned a Value into a Python float ({what}) while running on "
                "Values for create_graph, which would cut the graph: write forward with operators "
                "and micrograd.math (e.g. micrograd.math.exp, not math.exp)"
            )

    return refuse
