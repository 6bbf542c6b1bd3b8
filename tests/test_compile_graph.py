"""The planner's reading of the traced graph (micrograd/compiler/graph.py): its numpy passes give
what the node-by-node definitions give."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="micrograd.compile replays with numpy")

from micrograd import Value  # noqa: E402
from micrograd.compiler.graph import read_graph, stable_order  # noqa: E402
from micrograd.compiler.trace import trace  # noqa: E402


@given(st.lists(st.integers(0, 70_000), max_size=300), st.booleans())
def test_stable_order_is_the_stable_argsort(keys: list[int], narrow: bool) -> None:
    """Keys below 2**16 (radix-sorted as 16-bit keys) and wider ones: numpy's stable argsort."""
    bound = 1 << 16 if narrow else 70_001
    a = np.array([k % bound for k in keys], dtype=np.intp)
    assert stable_order(np, a, bound).tolist() == np.argsort(a, kind="stable").tolist()


def test_levels_and_needs_are_those_node_by_node() -> None:
    """Each computed node's level is 1 + its deepest operand's (a leaf's 0) and it needs a gradient
    where an operand does (a parameter does): as a walk in topological order gives them."""
    w, b, frozen = Value(0.5), Value(-1.0), Value(2.0)

    def loss(x: Value) -> Value:
        h = (w * x + b).tanh() * frozen
        return (h * h + w * frozen.exp()).log() - x * 3.0

    graph = read_graph(trace(loss, (3.0,), [w, b]))
    level: dict[Value, int] = {}
    needs: dict[Value, bool] = {w: True, b: True}
    for v in graph.nodes:
        ops = [t.value for t in graph.terms(v)] if v in graph.computed else []
        level[v] = 1 + max(level[c] for c in ops) if ops else 0
        if ops:
            needs[v] = any(needs.get(c, False) for c in ops)
    assert graph.level == level
    assert graph.needs_grad == needs
    assert max(level.values()) > 3 and not all(needs.values())


def test_invariant_nodes_read_no_input_through_builtin_ops() -> None:
    """``Edges.invariant`` (what a batch's samples share): the computed nodes that read no input,
    through the engine's own ops only (a user ``Function``'s result is never shared)."""
    from tests.user_ops import Swish

    w, b = Value(0.5), Value(-1.0)

    def loss(x: Value) -> Value:
        return (Swish.apply(w * b) + (w * w - b).tanh()) * x + (b * b + 1.0)

    graph = read_graph(trace(loss, (3.0,), [w, b]))
    varies: dict[Value, bool] = {}
    for v in graph.nodes:
        if v in graph.computed:
            fn = graph.ops.get(v)
            opaque = fn is not None and not fn.builtin
            varies[v] = opaque or any(varies[t.value] for t in graph.terms(v))
        else:
            varies[v] = v in graph.trace.inputs
    invariant = [v for v in graph.computed if not varies[v]]
    got = [v for v, keep in zip(graph.nodes, graph.numbered.invariant.tolist()) if keep]
    assert got == invariant
    assert 0 < len(invariant) < len(graph.computed)
