"""A small graph for each break-it mistake, on which it changes a gradient.

Where a mistake changes nothing on the learner's graph (``"overwrite"`` on the lecture's neuron:
no Value is used twice), the explorer's break-it panel says why and offers the mistake's example,
one click away, as an explorer page of its own.  ``EXAMPLES[name]`` is ``(code, build)``: the
code as the learner would type it, and a function building that graph (labelled as the code
names it) and returning its output.

>>> from micrograd.viz.mistakes import MISTAKES, wrong_gradients
>>> code, build = EXAMPLES["overwrite"]
>>> code
'a = Value(3.0); b = a + a'
>>> all(wrong_gradients(EXAMPLES[m][1](), m).first is not None for m in MISTAKES)
True
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine import Value

__all__ = ["EXAMPLES"]


def _labelled(value: Value, label: str) -> Value:
    value.label = label
    return value


def _used_twice_by_one_op() -> Value:
    a = Value(3.0, label="a")
    return _labelled(a + a, "b")


def _used_twice_by_two_ops() -> Value:
    x = Value(0.5, label="x")
    t = _labelled(x.tanh(), "t")
    return _labelled(t * _labelled(t + 1, "s"), "L")


def _one_product() -> Value:
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    return _labelled(a * b, "c")


def _one_tanh() -> Value:
    x = Value(0.5, label="x")
    return _labelled(x.tanh(), "t")


#: Each mistake's example: the code, and what builds its graph (the output returned).
EXAMPLES: dict[str, tuple[str, Callable[[], Value]]] = {
    # the lecture's own: a used twice by one +, so = keeps one of its two contributions
    "overwrite": ("a = Value(3.0); b = a + a", _used_twice_by_one_op),
    # t is used by L and by s = t + 1: the recursion runs t's rule before s has added in
    "no-topo": ("x = Value(0.5); t = x.tanh(); L = t * (t + 1)", _used_twice_by_two_ops),
    # any op at all: the second backward() adds onto the first
    "no-zero-grad": ("a = Value(2.0); b = Value(-3.0); c = a * b", _one_product),
    "tanh": ("x = Value(0.5); t = x.tanh()", _one_tanh),
}
