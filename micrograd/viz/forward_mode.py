"""``explain_jvp``: forward mode printed step by step, as ``explain`` prints backpropagation.

The steps are ``micrograd.func``'s (``forward_steps``: the tangents pushed from the inputs to the
outputs); this module only writes them, with the graph model's names and numbers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..func.reverse import topological_order
from ..func.transforms import forward_steps
from .graph_model import d_of, expression, fmt, names_of


def explain_jvp(
    f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...], file: TextIO | None = None
) -> None:
    """Print forward mode step by step: the tangents flowing from the inputs to the outputs, node by
    node in topological order, each the sum of local derivative * operand's tangent (``explain``
    shows the same local derivatives flowing backward).  Inputs are named after f's parameters;
    other Values by their label or ``#i``.  On numbers; prints to ``file`` (default: stdout).

    >>> explain_jvp(lambda x, y: x * y + x, (2.0, 3.0), (1.0, 0.0))
    Forward mode through 4 Values, in topological order.
    Each Value's tangent: sum over its operands of local derivative * the operand's tangent.
    <BLANKLINE>
    x = input  data 2.0000  tangent 1.0000 (the seed)
    <BLANKLINE>
    y = input  data 3.0000  tangent 0.0000 (the seed)
    <BLANKLINE>
    #2 = x * y  data 6.0000
        x  local d(#2)/dx = 3.0000 * tangent 1.0000 = 3.0000
        y  local d(#2)/dy = 2.0000 * tangent 0.0000 = 0.0000
        tangent 3.0000
    <BLANKLINE>
    #3 = #2 + x  data 8.0000  (output)
        #2  local d(#3)/d(#2) = 1.0000 * tangent 3.0000 = 3.0000
        x   local d(#3)/dx = 1.0000 * tangent 1.0000 = 1.0000
        tangent 4.0000
    """
    steps, outputs = forward_steps(f, primals, tangents, caller="explain_jvp")
    out = sys.stdout if file is None else file
    order = topological_order(outputs) if outputs else []
    names = names_of(order)
    print(f"Forward mode through {len(order)} Values, in topological order.", file=out)
    print(
        "Each Value's tangent: sum over its operands of local derivative * the operand's tangent.", file=out
    )
    for node, parts, total in steps:
        mark = "  (output)" if node in outputs else ""
        if not parts:
            line = f"{names[node]} = input  data {fmt(node.data)}  tangent {fmt(total)} (the seed){mark}"
            print(f"\n{line}", file=out)
            continue
        print(f"\n{names[node]} = {expression(node, names)}  data {fmt(node.data)}{mark}", file=out)
        width = max(len(names[child]) for child, _, _ in parts)
        for child, local, t in parts:
            contribution = 0.0 if local is None else local * t
            shown = "none" if local is None else fmt(local)
            print(
                f"    {names[child]:<{width}}  local {d_of(names[node], names[child])} = {shown} "
                f"* tangent {fmt(t)} = {fmt(contribution)}",
                file=out,
            )
        print(f"    tangent {fmt(total)}", file=out)
