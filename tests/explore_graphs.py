"""Graphs the explorer tests step through: the README's, a reused node, an n-ary sum, a node
built by hand without a rule, every built-in op, a user Function (when micrograd has it)."""

from __future__ import annotations

from collections.abc import Callable

import micrograd
from micrograd import Value


def readme() -> Value:
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * Value(-2.0, label="f")
    L.label = "L"
    return L


def reused() -> Value:
    """x feeds four ops (twice into one of them), y two: running sums accumulate across steps."""
    x = Value(0.5, label="x")
    y = x * x + x.tanh()
    y.label = "y"
    z = micrograd.sum([y, x, y.exp(), (x - 3.0) ** 2])
    z.label = "z"
    return z.relu() / Value(4.0, label="k")


def by_hand() -> Value:
    """A node built by hand (``Value(data, children, op)``), without a derivative rule: gradients stop."""
    a, b = Value(1.5, label="a"), Value(-0.5, label="b")
    h = Value(a.data * 2 + b.data, (a, b), "twice_a_plus_b")
    h.label = "h"
    return (h * a).sigmoid()


def every_op() -> Value:
    x, y = Value(0.7, label="x"), Value(1.3, label="y")
    terms = [
        x + y,
        x - y,
        x * y,
        x / y,
        x**y,
        x**3,
        -x,
        abs(x - y),
        x.exp(),
        y.log(),
        y.sqrt(),
        x.tanh(),
        x.sigmoid(),
        (x - y).relu(),
        (x - y).leaky_relu(),
        (x - y).elu(),
        x.softplus(),
        x.sin(),
        y.cos(),
    ]
    return micrograd.sum(terms)


def user_function() -> Value | None:
    """``3 * Cube(x)`` with a user ``micrograd.Function`` (issue 9's API); None before it exists."""
    function = getattr(micrograd, "Function", None)
    if function is None:
        return None

    class Cube(function):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: object, x: object) -> object:
            ctx.save_for_backward(x)  # type: ignore[attr-defined]
            return x * x * x  # type: ignore[operator]

        @staticmethod
        def backward(ctx: object, grad_output: object) -> object:
            (x,) = ctx.saved_tensors  # type: ignore[attr-defined]
            return grad_output * 3 * x * x  # type: ignore[operator]

    x = Value(0.8, label="x")
    y: Value = Cube.apply(x)
    return y * 3


def odd_labels() -> Value:
    """Labels that need escaping in DOT, SVG, HTML and JSON: record delimiters, spaces, markup, quotes."""
    a = Value(1.5, label="{a|b} <c>")
    b = Value(-2.0, label="two words")
    c = Value(0.25, label='</script><b>x</b> & "q"')
    return (a * b + c).exp()


GRAPHS: dict[str, Callable[[], Value | None]] = {
    "readme": readme,
    "reused": reused,
    "by_hand": by_hand,
    "every_op": every_op,
    "odd_labels": odd_labels,
    "user_function": user_function,
}


def explain_steps(text: str) -> list[tuple[str, list[str]]]:
    """explain's output as [(the node's line, [its operand lines, stripped])], in backward order."""
    steps: list[tuple[str, list[str]]] = []
    for block in text.split("\n\n")[1:]:
        lines = block.strip("\n").splitlines()
        if lines[0].startswith("Gradients of "):
            break
        steps.append((lines[0], [line.strip() for line in lines[1:]]))
    return steps


def operand_line(
    names: list[str], i: int, dlocal: str, local: str, up: str, contrib: str, dname: str, total: str
) -> str:
    """explain's line for operand ``i`` of a step whose operands are called ``names`` (stripped)."""
    width = max(len(n) for n in names)
    return f"{names[i]:<{width}}  local {dlocal} = {local} * {up} = {contrib}  {dname} so far {total}".strip()
