"""The block rules of ``micrograd/compiler/array_rules.py``: ``Dot`` replayed on its operands as one block
of rows gives the eager engine's numbers, bit for bit (loss and every gradient, signed zeros,
inf and nan included), unbatched and batched."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value
from micrograd.compiler.array_rules import dot_grid_backward
from micrograd.ops import Context, DetachedMax, Pick, weighted_sum
from tests.float_bits import bits

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, -1e-320]


def assert_is_eager(loss: Any, grads: Any, eager: Value, params: list[Value], unused: bool = False) -> None:
    """A replayed sample's loss and gradients are the eager engine's on its graph ``eager``, bit for
    bit (with ``unused``, a parameter the graph does not read has gradient 0.0)."""
    assert bits([float(loss)]) == bits([eager.data])
    want = micrograd.grad(eager, params, allow_unused=unused)
    assert bits(list(map(float, grads))) == bits([0.0 if g is None else g for g in want])


def dot_net(params: list[Value], n: int, xs: list[Value]) -> Value:
    """Two layers of weighted sums of ``n`` terms (the products' order matters), the second reading the
    first's outputs twice (gradients that add up), and a sum of their squares."""
    hidden = [weighted_sum(params[j * n : (j + 1) * n], xs[:n], start=params[-1 - j]) for j in range(3)]
    outs = [weighted_sum(params[3 * n + j : 3 * n + j + 3], hidden, start=h) for j, h in enumerate(hidden)]
    return micrograd.sum(o * o for o in outs)


@pytest.mark.parametrize("n", [0, 1, 3, 17])
@pytest.mark.parametrize("specials", [False, True])
def test_dot_block_is_the_eager_engine_bit_for_bit(n: int, specials: bool) -> None:
    rng = random.Random(n * 7 + specials)
    params = [Value(rng.gauss(0, 1)) for _ in range(3 * n + 9)]
    if specials:
        for p in rng.sample(params, 4):
            p.data = rng.choice(SPECIAL)
    sample = [rng.gauss(0, 3) for _ in range(max(n, 1))]
    step = micrograd.compile(lambda xs: dot_net(params, n, list(xs)), (np.array(sample),), params=params)
    assert any(grp.block is not None for _, grp in step._groups)  # (the block rules ran)
    for _ in range(3):
        x = [rng.choice([*SPECIAL, rng.gauss(0, 1e3)]) if specials else rng.gauss(0, 1) for _ in sample]
        loss, grads = step(np.array(x))
        eager = dot_net(params, n, [Value(v) for v in x])
        want = micrograd.grad(eager, params, allow_unused=True)
        assert bits([loss]) == bits([eager.data])
        assert bits(grads.tolist()) == bits([0.0 if g is None else g for g in want])


@pytest.mark.parametrize("n", [1, 5])
def test_dot_block_batched_is_the_eager_loop(n: int) -> None:
    rng = random.Random(n)
    params = [Value(rng.gauss(0, 1)) for _ in range(3 * n + 9)]
    step = micrograd.compile(
        lambda xs: dot_net(params, n, list(xs)), (np.zeros(n),), params=params, batched=True, reduction="sum"
    )
    batch = np.array([[rng.gauss(0, 1) for _ in range(n)] for _ in range(6)])
    losses, grads = step.per_sample(batch)
    for row, x in enumerate(batch.tolist()):
        assert_is_eager(
            losses[row], grads[row], dot_net(params, n, [Value(v) for v in x]), params, unused=True
        )


def pick_max_net(params: list[Value], label: Value, xs: list[Value]) -> Value:
    """A softmax-style graph: the detached max of the logits subtracted, the labelled entry picked."""
    logits = [p * x for p, x in zip(params, xs)]
    top = DetachedMax.apply(*logits)
    shifted = [(v - top).exp() for v in logits]
    return Pick.apply(label, *shifted) + Pick.apply(label, *logits) * params[0]


@pytest.mark.parametrize("k", [1, 2, 6])
def test_pick_and_max_blocks_are_the_eager_engine_bit_for_bit(k: int) -> None:
    rng = random.Random(k)
    params = [Value(rng.choice([1.0, -1.0, rng.gauss(0, 1)])) for _ in range(k)]
    step = micrograd.compile(
        lambda lab, xs: pick_max_net(params, lab, list(xs)), (0.0, np.zeros(k)), params=params
    )
    assert sum(grp.block is not None for _, grp in step._groups) >= 2  # (Pick's and the max's)
    for trial in range(12):
        label = float(trial % (k + 2)) if trial % 5 else rng.choice([math.nan, -1.0, 0.5])
        x = [rng.choice([0.0, -0.0, math.inf, math.nan, rng.gauss(0, 2), 1.0]) for _ in range(k)]
        loss, grads = step(label, np.array(x))
        eager = pick_max_net(params, Value(label), [Value(v) for v in x])
        want = micrograd.grad(eager, params, allow_unused=True)
        assert bits([loss]) == bits([eager.data])
        assert bits(grads.tolist()) == bits([0.0 if g is None else g for g in want])


def test_a_batched_pick_of_parameters_reads_each_samples_own_entry_bit_for_bit() -> None:
    """Batched, a Pick whose values are parameters (an embedding's rows) reads each sample's entry
    by its label (``Group.fixed_pick_step``): the same numbers as the eager engine, for labels
    that are no index as well (nan for the pick and for every entry's gradient)."""
    rng = random.Random(3)
    k, dims = 5, 3
    table = [[Value(rng.choice([rng.gauss(0, 1), -0.0, math.inf])) for _ in range(k)] for _ in range(dims)]
    params = [p for row in table for p in row]

    def loss(x: Value, labels: list[Value]) -> Value:
        picks = [Pick.apply(label, *row) for label in labels for row in table]
        return micrograd.sum(p * x for p in picks)

    step = micrograd.compile(loss, (0.0, np.zeros(2)), params, batched=True, reduction="sum")
    odd = [0.5, -1.0, float(k), math.nan, math.inf, -0.0, 1e300]
    labels = np.array([[rng.choice([*odd, *map(float, range(k))]) for _ in range(2)] for _ in range(12)])
    xs = np.array([rng.choice([1.5, -2.0, 0.0]) for _ in range(12)])
    losses, grads = step.per_sample(xs, labels)
    picks = [grp for _, grp in step._groups if grp.fn is Pick]
    assert picks and all(grp.fixed[np.stack(grp.args)[1:]].all() for grp in picks)  # (the fixed path)
    for i in range(len(xs)):
        assert_is_eager(
            losses[i], grads[i], loss(Value(float(xs[i])), [Value(float(v)) for v in labels[i]]), params
        )


def test_a_clone_of_a_batched_step_keeps_its_own_arrays() -> None:
    rng = random.Random(5)
    n = 4
    params = [Value(rng.gauss(0, 1)) for _ in range(3 * n + 9)]
    step = micrograd.compile(
        lambda xs: dot_net(params, n, list(xs)), (np.zeros(n),), params=params, batched=True, reduction="sum"
    )
    twin = step.clone()
    small, large = (np.array([[rng.gauss(0, 1) for _ in range(n)] for _ in range(b)]) for b in (3, 5))
    want_small, want_large = step.per_sample(small), step.per_sample(large)
    for _ in range(2):  # each keeps its width: alternating calls bind nothing again
        got_small, got_large = twin.per_sample(small), step.per_sample(large)
        assert (twin.batch_size, step.batch_size) == (3, 5)
        for got, want in ((got_small, want_small), (got_large, want_large)):
            assert bits(got[0].tolist()) == bits(want[0].tolist())
            assert bits(got[1].ravel().tolist()) == bits(want[1].ravel().tolist())


def linear_over_positions(
    weights: list[list[Value]], columns: list[list[Value]], start: float = 0.0
) -> Value:
    """A Linear layer (no bias) applied at each position, as a GPT's projections are: the Dot nodes
    form a grid of (weights row, inputs column) pairs, which the replay computes broadcast."""
    outs = [weighted_sum(row, col, start=start) for col in columns for row in weights]
    return micrograd.sum((o * o).tanh() for o in outs)


def test_a_grid_whose_weights_differ_by_sample_replays_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batched, a grid's weights computed from each sample (not parameters, not the same for every
    sample) take the grid's own layout (``Group.grid_step``), not ``fixed_grid_step``'s."""
    from micrograd.compiler import array_rules

    monkeypatch.setattr(array_rules, "CALL_COST", 0)  # (a small layer takes the block path: test the grid)
    rng = random.Random(11)
    n_in, n_out, positions = 3, 4, 5
    scales = [Value(rng.gauss(0, 1)) for _ in range(n_in * n_out)]

    def loss(xs: list[Value]) -> Value:
        weights = [[s * xs[0] for s in scales[o * n_in : (o + 1) * n_in]] for o in range(n_out)]
        columns = [list(xs[1 + p * n_in : 1 + (p + 1) * n_in]) for p in range(positions)]
        return linear_over_positions(weights, columns, start=-0.0)

    shape = (1 + n_in * positions,)
    step = micrograd.compile(loss, (np.zeros(shape),), scales, batched=True, reduction="sum")
    xs = np.array([[rng.choice([*SPECIAL, rng.gauss(0, 2)]) for _ in range(shape[0])] for _ in range(3)])
    losses, grads = step.per_sample(xs)
    grids = [grp for _, grp in step._groups if grp.grid is not None]
    assert grids and not any(grp.fixed[grp.grid[0]].all() for grp in grids)
    for i, x in enumerate(xs):
        assert_is_eager(losses[i], grads[i], loss([Value(float(v)) for v in x]), scales)


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("specials", [False, True])
@pytest.mark.parametrize("batched", [False, True])
def test_a_linear_layer_over_positions_replays_on_its_grid_bit_for_bit(
    specials: bool, batched: bool, zeros: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from micrograd.compiler import array_rules
    from micrograd.compiler.array_rules import dot_grid

    monkeypatch.setattr(array_rules, "CALL_COST", 0)  # (a small layer takes the block path: test the grid)

    rng = random.Random(specials * 2 + batched)
    n_in, n_out, positions = 4, 3, 5
    weights = [[Value(rng.gauss(0, 1)) for _ in range(n_in)] for _ in range(n_out)]
    params = [w for row in weights for w in row]
    if specials:
        for p in rng.sample(params, 3):
            p.data = rng.choice(SPECIAL)

    def loss(xs: list[Value]) -> Value:
        columns = [list(xs[p * n_in : (p + 1) * n_in]) for p in range(positions)]
        return linear_over_positions(weights, columns, start=-0.0 if zeros else 0.0)

    shape = (n_in * positions,)
    reduction = "sum" if batched else "mean"
    step = micrograd.compile(loss, (np.zeros(shape),), params, batched=batched, reduction=reduction)
    xs = [[rng.choice([*SPECIAL, rng.gauss(0, 2)]) if specials else rng.gauss(0, 2) for _ in range(shape[0])]]
    xs.append([rng.gauss(0, 2) for _ in range(shape[0])])
    if zeros:  # signed zeros in: dots of -0.0 terms, which are -0.0 only if their sum starts from -0.0
        xs = [[rng.choice([0.0, -0.0]) for _ in row] for row in xs]
    got = step.per_sample(np.array(xs)) if batched else step(np.array(xs[0]))
    grids = [grp for _, grp in step._groups if grp.grid is not None]
    assert grids  # (the grid ran; batched, on weights the same for every sample: fixed_grid_step)
    assert all(grp.fixed[grp.grid[0]].all() for grp in grids)
    for i, x in enumerate(xs if batched else xs[:1]):
        loss_i, grads_i = (got[0][i], got[1][i]) if batched else got
        assert_is_eager(loss_i, grads_i, loss([Value(v) for v in x]), params)
    # a dot of a vector with itself (an rmsnorm's) is no grid: every node reads its own pairs
    assert dot_grid(np.array([[0, 0], [1, 2], [1, 2]])) is None
    assert dot_grid(np.array([[0, 0, 0, 0], [1, 2, 1, 2], [5, 5, 6, 6]])) is not None
    monkeypatch.undo()  # the grid only where it saves more than its extra calls cost
    assert dot_grid(np.array([[0, 0, 0, 0], [1, 2, 1, 2], [5, 5, 6, 6]])) is None
    assert dot_grid(np.array([[0, 0, 0, 0], [1, 2, 1, 2], [5, 5, 6, 6]]), width=4000) is not None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*SPECIAL, 1.0, -1.0, 2.5]), min_size=1, max_size=7), min_size=1, max_size=9
    )
)
def test_the_max_block_keeps_the_very_operand_the_ops_loop_keeps(columns: list[list[float]]) -> None:
    """The whole-array max (fmax, then the first operand equal to it) against ``DetachedMax.forward``
    on floats, column by column: the same bits, the sign of a zero and which nan included."""
    from micrograd._core.context import Context
    from micrograd.compiler.array_rules import max_block_forward

    n = len(columns[0])
    columns = [(c * n)[:n] for c in columns]  # (each column n operands)
    block = np.array(columns, dtype=np.float64).T.copy()  # (operands, columns)
    got = max_block_forward(Context((False,) * n, ()), block)
    want = [DetachedMax.forward(Context((False,) * n, ()), *c) for c in columns]
    assert np.asarray(got).view(np.int64).tolist() == np.array(want).view(np.int64).tolist()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 4),
    positions=st.integers(1, 4),
    outputs=st.integers(1, 4),
    batch=st.sampled_from([(), (1,), (2,), (5,)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_grids_backward_is_each_product_bit_for_bit(
    n: int, positions: int, outputs: int, batch: tuple[int, ...], seed: int
) -> None:
    """``dot_grid_backward`` (x_k copied across the outputs, then multiplied by g in place when there
    is a batch) gives each contribution ``g[p, i] * x[k, p]`` and ``g[p, i] * w[k, i]``, signed zeros,
    inf and nan included, into ``out`` or a new array."""
    rng = np.random.default_rng(seed)

    def draw(*shape: int) -> np.ndarray:
        values = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4, size=shape)
        return np.where(rng.random(shape) < 0.3, rng.choice(SPECIAL, size=shape), values)

    w, x, g = draw(n, outputs, *batch), draw(n, positions, *batch), draw(positions * outputs, *batch)
    for out in (None, np.empty((2 * n, positions * outputs, *batch))):
        with np.errstate(all="ignore"):  # (inf times 0 is nan, large times large is inf: as eager's)
            check_grid_backward(w, x, g, out)


def check_grid_backward(w: np.ndarray, x: np.ndarray, g: np.ndarray, out: np.ndarray | None) -> None:
    """Every row of ``dot_grid_backward``'s result is the product it stands for, bit for bit."""
    n, positions, outputs, batch = len(w), x.shape[1], w.shape[1], g.shape[1:]
    ctx = Context((True, True), ())
    ctx.save_for_backward(w, x)
    first, rows = dot_grid_backward(ctx, g, out)
    assert first is g and (out is None or rows is out)
    grid = rows.reshape(2 * n, positions, outputs, *batch)
    for k in range(n):
        for p in range(positions):
            for i in range(outputs):
                at = g[p * outputs + i]
                assert bits(np.ravel(grid[k, p, i]).tolist()) == bits(np.ravel(at * x[k, p]).tolist())
                assert bits(np.ravel(grid[n + k, p, i]).tolist()) == bits(np.ravel(at * w[k, i]).tolist())


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 4),
    positions=st.integers(1, 4),
    outputs=st.integers(1, 4),
    batch=st.integers(2, 5),
    backwards=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_grids_inputs_by_use_are_each_product_bit_for_bit(
    n: int, positions: int, outputs: int, batch: int, backwards: bool, seed: int
) -> None:
    """``dot_grid_backward(..., order=)``, for weights the same for every sample: the weights' rows as
    without it, and the inputs' laid out use by use, row ``u`` of input ``(k, p)`` being
    ``g[p, order[u]] * w[k, order[u]]``, signed zeros, inf and nan included."""
    rng = np.random.default_rng(seed)

    def draw(*shape: int) -> np.ndarray:
        values = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4, size=shape)
        return np.where(rng.random(shape) < 0.3, rng.choice(SPECIAL, size=shape), values)

    w = np.repeat(draw(n, outputs)[:, :, None], batch, axis=2)  # (the same weight for every sample)
    x, g = draw(n, positions, batch), draw(positions * outputs, batch)
    order: Any = slice(None, None, -1) if backwards else rng.permutation(outputs)
    uses = np.arange(outputs)[order]
    ctx = Context((True, True), ())
    ctx.save_for_backward(w, x)
    with np.errstate(all="ignore"):  # (inf times 0 is nan, large times large is inf: as eager's)
        _, plain = dot_grid_backward(ctx, g)
        out = np.empty((2 * n, positions * outputs, batch))
        first, rows = dot_grid_backward(ctx, g, out, order=order)
        assert first is g and rows is out
        assert bits(out[:n].ravel().tolist()) == bits(plain[:n].ravel().tolist())
        by_use = out[n:].reshape(outputs, n, positions, batch)
        for u, i in enumerate(uses):
            for k in range(n):
                for p in range(positions):
                    want = g[p * outputs + i] * w[k, i]
                    assert bits(by_use[u, k, p].tolist()) == bits(want.tolist())


@pytest.mark.parametrize("specials", [False, True])
def test_a_grids_computed_inputs_are_gathered_use_by_use_bit_for_bit(
    specials: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batched, a grid of weights the same for every sample whose inputs are nodes (they need
    gradients, each the sum of its contributions from every output of its position) writes those
    contributions use by use and their gather adds them up as they lie (``run._by_use``): the
    eager engine's numbers, bit for bit."""
    from micrograd.compiler import array_rules

    monkeypatch.setattr(array_rules, "CALL_COST", 0)  # (a small layer takes the block path: test the grid)
    rng = random.Random(5 + specials)
    n_in, n_out, positions = 3, 4, 5
    weights = [[Value(rng.gauss(0, 1)) for _ in range(n_in)] for _ in range(n_out)]
    scales = [Value(rng.gauss(0, 1)) for _ in range(n_in)]
    params = [w for row in weights for w in row] + scales
    if specials:
        for p in rng.sample(params, 3):
            p.data = rng.choice(SPECIAL)

    def loss(xs: list[Value]) -> Value:
        columns = [[x * s for x, s in zip(xs[p * n_in : (p + 1) * n_in], scales)] for p in range(positions)]
        return linear_over_positions(weights, columns)

    step = micrograd.compile(loss, (np.zeros(n_in * positions),), params, batched=True, reduction="sum")
    xs = np.array([[rng.gauss(0, 2) for _ in range(n_in * positions)] for _ in range(3)])
    if specials:
        xs[0, :: n_in + 1] = [rng.choice(SPECIAL) for _ in xs[0, :: n_in + 1]]
    for _ in range(2):  # (a second call on the arrays the first bound)
        losses, grads = step.per_sample(xs)
        assert any(grp.by_use is not None for _, grp in step._groups)
        assert any(g.by_use is not None for g in step._all_gathers())
        for i, x in enumerate(xs):
            assert_is_eager(losses[i], grads[i], loss([Value(float(v)) for v in x]), params)
        xs = xs[::-1].copy()
    single = step.per_sample(xs[:1])  # (one sample: no batch to lay out, the slots as they are)
    assert not any(g.by_use is not None for g in step._all_gathers())
    assert_is_eager(single[0][0], single[1][0], loss([Value(float(v)) for v in xs[0]]), params)
