"""``group_nodes.pad_groups``: the groups of one level that differ only in their count of operands
(an attention's sums, weighted sums and maxima over 1, 2, ... positions) run as one, each node's
operands padded with operands that change nothing.  The numbers are the eager engine's, bit for
bit (signed zeros, inf and nan included), unbatched, batched and ragged, and the replay runs fewer groups."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value
from micrograd.compiler.plan import make_plan
from micrograd.compiler.trace import trace
from micrograd.ops import DetachedMax, weighted_sum
from tests.float_bits import bits

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, -1e-320]
T = 5  # positions traced: the longest "document"


def attention_parts(w: list[Value], xs: list[Value]) -> list[Value]:
    """A causal attention over the positions of ``xs``: at position t, logits over positions 0..t
    (sums of t + 1 terms), their detached max (t + 1 operands), a softmax (a sum of t + 1 exps) and
    the weighted sum of t + 1 values (a Dot of t + 1 pairs); one loss part per position."""
    a, b, c, d = w
    keys = [a * x for x in xs]
    values = [(b * x).tanh() for x in xs]
    parts = []
    for t, x in enumerate(xs):
        query = c * x
        logits = [micrograd.sum([query * k, d]) for k in keys[: t + 1]]  # (a sum of 2: one group)
        top = DetachedMax.apply(*logits)
        exps = [(z - top).exp() for z in logits]
        total = micrograd.sum(exps)
        out = weighted_sum([e / total for e in exps], values[: t + 1], start=d)
        parts.append((out - x) ** 2)
    return parts


def eager(w: list[Value], xs: list[float]) -> tuple[float, list[float]]:
    """The loss, the mean of the parts of ``xs``'s own graph, and its gradients (None: 0.0)."""
    parts = attention_parts(w, [Value(x) for x in xs])
    loss = micrograd.sum(parts) * (1.0 / len(xs))
    grads = micrograd.grad(loss, w, allow_unused=True)
    return loss.data, [0.0 if g is None else g for g in grads]


def compiled(w: list[Value], batched: bool) -> micrograd.compiler.CompiledStep:
    if not batched:
        return micrograd.compile(
            lambda xs: micrograd.sum(attention_parts(w, list(xs))) * (1.0 / T), (np.zeros(T),), w
        )
    return micrograd.compile(
        lambda xs: attention_parts(w, list(xs)),
        (np.zeros(T),),
        w,
        batched=True,
        ragged="mean",
        reduction="sum",
    )


def test_the_groups_of_several_counts_of_operands_run_as_one() -> None:
    w = [Value(0.5), Value(-0.25), Value(1.5), Value(0.125)]
    fn = lambda xs: micrograd.sum(attention_parts(w, list(xs)))  # noqa: E731
    padded = make_plan(trace(fn, (np.zeros(T),), w))
    plain = make_plan(trace(fn, (np.zeros(T),), w), pad=False)
    ops = lambda plan: sorted(g.fn.name if g.fn else "sum" for _, g in plan.groups)  # noqa: E731
    # the max over 1..5 positions, the softmax's sums of 1..5 exps and the weighted sums: one group each
    assert ops(plain).count("max (detached)") == T and ops(padded).count("max (detached)") == 1
    assert ops(plain).count("dot") == T and ops(padded).count("dot") == 1
    assert len(padded.groups) <= len(plain.groups) - 3 * (T - 1)
    # the keys' and values' gradients, from 1..5 later positions: one gather each, padded with -0.0
    gathers = lambda plan: sorted(g.slots.shape for gs in plan.gathers.values() for g in gs)  # noqa: E731
    assert len(gathers(padded)) <= len(gathers(plain)) - 2 * (T - 1)
    assert padded.pad_slot >= 0 and plain.pad_slot == -1


numbers = st.one_of(st.floats(-3.0, 3.0, allow_nan=False), st.sampled_from(SPECIAL))


@settings(max_examples=40, deadline=None)
@given(
    weights=st.lists(numbers, min_size=4, max_size=4),
    docs=st.lists(st.lists(numbers, min_size=T, max_size=T), min_size=1, max_size=4),
    sizes=st.lists(st.integers(1, T), min_size=4, max_size=4),
)
@example(weights=[0.0, -0.0, 1.0, -0.0], docs=[[-0.0] * T, [0.0] * T], sizes=[1, T, 2, 3])
@example(weights=[1.0, 1.0, 1.0, 0.0], docs=[[math.inf, -math.inf, math.nan, 0.0, 1.0]], sizes=[T] * 4)
@example(weights=[1.0, 1.0, 1.0, -math.inf], docs=[[1.0] * T], sizes=[T] * 4)
def test_padded_groups_give_the_eager_numbers_bit_for_bit(
    weights: list[float], docs: list[list[float]], sizes: list[int]
) -> None:
    w = [Value(x) for x in weights]
    with np.errstate(all="ignore"):
        step = compiled(w, batched=False)
        for doc in docs:
            loss, grads = step(np.array(doc))
            want_loss, want_grads = eager(w, doc)
            assert bits([loss]) == bits([want_loss])
            assert bits(grads.tolist()) == bits(want_grads)
        # a ragged batch: each document cut to its own size, its graph the eager one of that size
        sizes = sizes[: len(docs)]
        batch = compiled(w, batched=True)
        losses, per_doc = batch.per_sample(np.array(docs), sizes=sizes)
        for i, (doc, n) in enumerate(zip(docs, sizes)):
            want_loss, want_grads = eager(w, doc[:n])
            assert bits([losses[i]]) == bits([want_loss])
            reached = batch.reached_by(sizes)[i]
            assert bits([g for g, r in zip(per_doc[i].tolist(), reached) if r]) == bits(
                [g for g, r in zip(want_grads, reached) if r]
            )


@pytest.mark.parametrize("batched", [False, True])
def test_with_and_without_the_pass_the_numbers_are_the_same(batched: bool) -> None:
    from micrograd.compiler.run import BatchedStep, CompiledStep

    w = [Value(0.5), Value(-0.25), Value(1.5), Value(0.125)]
    fn = lambda xs: micrograd.sum(attention_parts(w, list(xs)))  # noqa: E731
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(6, T)) if batched else rng.normal(size=T)
    got = []
    for pad in (True, False):
        plan = make_plan(trace(fn, (np.zeros(T),), w), batched=batched, pad=pad)
        step = BatchedStep(plan, "sum") if batched else CompiledStep(plan)
        loss, grads = step(xs)
        got.append(bits([loss, *grads.tolist()]))
    assert got[0] == got[1]


def test_a_padded_max_of_operands_that_are_all_minus_inf_is_minus_inf() -> None:
    """A max padded with -inf where every operand is -inf is -inf, as the op's loop gives: each
    position's max is read by its own weight, whose gradient is that max."""
    w = [Value(1.0) for _ in range(T)]
    fn = lambda xs: micrograd.sum(w[t] * DetachedMax.apply(*list(xs)[: t + 1]) for t in range(T))  # noqa: E731
    step = micrograd.compile(fn, (np.zeros(T),), w)
    assert step.num_groups < len(make_plan(trace(fn, (np.zeros(T),), w), pad=False).groups)
    xs = np.array([-math.inf] * T)
    loss, grads = step(xs)
    eager = fn([Value(x) for x in xs])
    assert bits([loss, *grads.tolist()]) == bits([eager.data, *micrograd.grad(eager, w)])
