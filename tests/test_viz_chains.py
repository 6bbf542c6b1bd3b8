"""micrograd.viz.chains: a ``dot`` node or a long sum drawn as the lecture's chain of ``*`` and
``+`` nodes.  The oracle is that chain built for real, with the engine's binary ops on fresh
leaves of the same numbers (the graph micrograd 0.1.0's neuron builds), and run backward: every
link's value and gradient, every step's upstream, local derivatives and contributions, and
every leaf's gradient must be its numbers bit for bit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value, draw_dot, explore
from micrograd.ops import weighted_sum
from micrograd.scopes import record_scopes
from micrograd.viz import backward_steps
from micrograd.viz.chains import chain_of, expandable
from micrograd.viz.graph_model import BackwardTrace, graph_model
from nn import Neuron

NUMBERS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 0.1, 1e-300]
)


def bits(x: float) -> str:
    return float(x).hex()


def steps_by_node(trace: BackwardTrace) -> dict[Value, Any]:
    return {s.node: s for s in trace.steps}


def same_step(ours: Any, theirs: Any, match: dict[Value, Value]) -> None:
    """Upstream, and for each operand its local derivative and contribution, bit for bit."""
    assert bits(ours.upstream) == bits(theirs.upstream)
    got = [(match[c.operand], bits(c.local), bits(c.contribution)) for c in ours.contributions]
    want = [
        (match.get(c.operand, c.operand), bits(c.local), bits(c.contribution)) for c in theirs.contributions
    ]
    assert got == want


def check(
    loss: Value, node: Value, oracle_loss: Value, oracle_links: list[Value], match: dict[Value, Value]
) -> None:
    """``node`` of ``loss``'s graph, drawn as its chain, against ``oracle_loss``'s chain (its
    links, in forward order, then the node's stand-in); ``match``: our leaves -> the oracle's."""
    model = graph_model(loss, expressions=True, expand_dot=True)
    chain = model.chains[node]
    trace = model.backward()
    oracle = backward_steps(oracle_loss)
    oracle_loss.backward()
    ours = [*chain.links, node]
    assert len(ours) == len(oracle_links)
    match = {**match, **dict(zip(ours, oracle_links))}
    for v, w in zip(ours, oracle_links):
        assert bits(v.data) == bits(w.data)
        assert bits(trace.grads[v]) == bits(w.grad) == bits(oracle.grads[w])
    mine, theirs = steps_by_node(trace), steps_by_node(oracle)
    for v in ours:
        same_step(mine[v], theirs[match[v]], match)
    for leaf, twin in match.items():
        if not leaf.children:
            assert bits(trace.grads[leaf]) == bits(twin.grad), leaf
    # and the leaves' gradients are the engine's own on the graph with the one node
    loss.backward()
    for leaf in match:
        if not leaf.children:
            assert bits(trace.grads[leaf]) == bits(leaf.grad)
    # the chain's forward order: every link after its operands, before its node
    place = model.index
    assert all(place[c] < place[v] for v in model.order for c in model.operands(v))


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(NUMBERS, NUMBERS, st.booleans()), min_size=2, max_size=6),
    start=NUMBERS,
)
def test_a_dot_node_drawn_as_its_chain_has_the_chains_numbers(pairs: list[Any], start: float) -> None:
    # a pair may square one Value (w*w, an L2 penalty's): that Value is read in one term
    ws = [Value(w) for w, _, _ in pairs]
    xs = [w if square else Value(x) for w, (_, x, square) in zip(ws, pairs)]
    b = Value(start)
    y = weighted_sum(ws, xs, start=b)
    loss = y * y + ws[0] * 1.5  # an upstream of 2y, and ws[0] used outside the dot too
    twin = {v: Value(v.data) for v in [b, *ws, *xs]}
    links: list[Value] = []
    acc = twin[b]
    for w, x in zip(ws, xs):
        product = twin[w] * twin[x]
        acc = acc + product
        links += [product, acc]
    oracle_loss = acc * acc + twin[ws[0]] * 1.5
    # forward order of our chain: p0, s1, p1, s2, ..., p(n-1), then the node (the last sum)
    check(loss, y, oracle_loss, links, twin)


@settings(max_examples=60, deadline=None)
@given(terms=st.lists(NUMBERS, min_size=3, max_size=7), start=st.none() | NUMBERS)
def test_a_long_sum_drawn_as_its_chain_has_the_chains_numbers(
    terms: list[float], start: float | None
) -> None:
    vs = [Value(t) for t in terms]
    s = micrograd.sum(vs) if start is None else micrograd.sum(vs, start=Value(start))
    loss = (s * 0.5).tanh() + vs[0]
    first = s._prev[0]
    twin = {v: Value(v.data) for v in s._prev}
    acc = twin[first] + twin[vs[0]]
    links = [acc]
    for v in vs[1:]:
        acc = acc + twin[v]
        links.append(acc)
    oracle_loss = (acc * 0.5).tanh() + twin[vs[0]]
    if start is None:  # 0 + v0 is not drawn: the chain starts at v0 + v1, its number still (0 + v0) + v1
        assert first in graph_model(loss).hidden
        # the oracle's 0 + v0 stands for v0 there; what it and v0 receive is compared as v0's
        twin[links[0]] = twin[vs[0]]
        links = links[1:]
    check(loss, s, oracle_loss, links, twin)


@settings(max_examples=40, deadline=None)
@given(nin=st.integers(2, 5), seed=st.integers(0, 1000), inputs=st.lists(NUMBERS, min_size=5, max_size=5))
def test_an_nn_neuron_drawn_as_its_chain_is_micrograds_neuron(
    nin: int, seed: int, inputs: list[float]
) -> None:
    """nn's Neuron (one + node of b and the products) against micrograd 0.1.0's: sum(wi*xi, b)."""
    neuron = Neuron(nin, seed=seed, activation="tanh")
    xs = [Value(x) for x in inputs[:nin]]
    out = neuron(xs)
    (act,) = out._prev
    twin = {v: Value(v.data) for v in [*neuron.parameters(), *xs]}
    products = {p: twin[p._prev[0]] * twin[p._prev[1]] for p in act._prev[1:]}
    acc = twin[neuron.b]
    links = []
    for p in act._prev[1:]:
        acc = acc + products[p]
        links.append(acc)
    oracle_out = acc.tanh()
    check(out, act, oracle_out, [*links[:-1], acc], {**twin, **products})


def test_a_node_reading_one_value_in_two_terms_stays_whole() -> None:
    a, b = Value(0.1, label="a"), Value(0.2, label="b")
    assert not expandable(micrograd.sum([a, b, a]))
    assert not expandable(weighted_sum([a, b], [b, a]))  # b*... and ...*b: two terms
    assert expandable(weighted_sum([a, b], [a, b]))  # a*a + b*b: each Value in one term
    pair = micrograd.sum([a, b])  # 0 + a + b, drawn a + b: already the chain
    assert not expandable(a + b) and not expandable(pair, graph_model(pair).hidden)
    model = graph_model(micrograd.sum([a, b, a]) * 2, expand_dot=True)
    assert model.chains == {}
    with pytest.raises(ValueError, match="has no chain to draw"):
        chain_of(a * b)


def test_draw_dot_draws_the_chain_and_every_number_is_the_engines() -> None:
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = weighted_sum([x1, x2], [w1, w2], start=b)
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    o.backward()
    one = draw_dot(o).source
    assert "[label=dot " in one and "x1*w1" not in one
    src = draw_dot(o, expand_dot=True).source
    records = dict(re.findall(r"^\t(n\d+) \[label=\"\{ ([^|]*) \|", src, flags=re.M))
    ops = dict(re.findall(r"^\t(n\d+)_op \[label=\"?([^\" ]*)", src, flags=re.M))
    assert sorted(records.values()) == sorted(
        ["x1", "w1", "x2", "w2", "b", "x1*w1", "x2*w2", "b + x1*w1", "n", "o"]
    )
    assert sorted(ops.values()) == ["*", "*", "+", "+", "tanh"]
    assert "grad 0.5000 }" in src.split("b + x1*w1 |")[1].split("\n")[0]  # a link's gradient: n's
    assert draw_dot(o, expand_dot=True).source == src  # deterministic


def test_expand_dot_is_checked() -> None:
    y = micrograd.sum([Value(1.0), Value(2.0), Value(3.0)])
    with pytest.raises(TypeError, match="expand_dot must be True or False"):
        explore(y, expand_dot="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expand_dot must be True or False"):
        draw_dot(y, expand_dot=1)  # type: ignore[arg-type]
    with record_scopes() as rec:
        z = micrograd.sum([Value(1.0), Value(2.0), Value(3.0)])
    with pytest.raises(ValueError, match="leave out scopes= and mistake="):
        explore(z, scopes=rec, expand_dot=True)
    with pytest.raises(ValueError, match="leave out scopes= and mistake="):
        explore(z, mistake="tanh", expand_dot=True)


def test_the_page_offers_the_other_view_only_where_it_has_one() -> None:
    a, b, c = Value(1.0, label="a"), Value(2.0, label="b"), Value(3.0, label="</script><script>alert(1)")
    page = explore(micrograd.sum([a, b, c]) * 2).html
    assert "show as the lecture's chain" in page and "<script>alert(1)" not in page
    assert "show as the lecture" not in explore(a * b + c).html  # nothing to expand


def test_a_dot_node_is_named_by_its_sum_of_products_in_both_views() -> None:
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2, b = Value(-3.0, label="w1"), Value(1.0, label="w2"), Value(0.5, label="b")
    n = weighted_sum([x1, x2], [w1, w2], start=b)
    for expand in (False, True):
        assert graph_model(n, expressions=True, expand_dot=expand).names[n] == "b + x1*w1 + x2*w2"
    no_start = weighted_sum([x1 + w1, x2], [w2, w1])  # its start of 0 adds nothing
    assert graph_model(no_start, expressions=True).names[no_start] == "(x1 + w1)*w2 + x2*w1"
