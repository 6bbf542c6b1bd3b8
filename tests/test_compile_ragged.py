"""``compile(..., batched=True, ragged=True)``: samples of different sizes in one replay, each
cut to its own graph, bit for bit the eager engine on that smaller graph."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value
from micrograd.compiler import CompileError
from tests.float_bits import raw_bits

N = 5  # the traced sequence length: the most parts a sample has


def rnn_parts(w: list[Value], xs: list[Value], ys: list[Value]) -> list[Value]:
    """A small recurrent net's per-step losses: the state carries every earlier step into the
    later ones (nodes of one part read those of earlier parts), and relu's dead units give
    gradients that are exactly +-0.0."""
    a, b, c, d = w
    h: Value | float = 0.0
    parts = []
    for x, y in zip(xs, ys):
        h = (a * h + b * x + c).relu() + (d * x).tanh() * h
        parts.append((h - y) ** 2)
    return parts


def eager(w: list[Value], xs: list[float], ys: list[float], n: int) -> tuple[float, list[float | None]]:
    """The loss and gradients of the eager graph of the first ``n`` steps only."""
    for p in w:
        p.grad = None
    parts = rnn_parts(w, [Value(x) for x in xs[:n]], [Value(y) for y in ys[:n]])
    loss = micrograd.sum(parts) * (1.0 / n)
    loss.backward()
    return loss.data, [p.grad for p in w]


floats = st.floats(-2.0, 2.0, allow_nan=False).map(lambda v: round(v, 1))


@settings(max_examples=40, deadline=None)
@given(
    weights=st.lists(floats, min_size=4, max_size=4),
    samples=st.lists(
        st.tuples(st.lists(floats, min_size=N, max_size=N), st.lists(floats, min_size=N, max_size=N)),
        min_size=1,
        max_size=5,
    ),
    sizes=st.lists(st.integers(1, N), min_size=5, max_size=5),
)
@example(weights=[0.0, -1.0, -0.0, 0.0], samples=[([0.0] * N, [0.0] * N)] * 2, sizes=[1, N, 2, 3, 4])
@example(  # sizes in no order, repeated, the longest not first (loaded longest first, given back so)
    weights=[0.5, -1.0, 0.3, 0.7],
    samples=[
        ([0.1 * (i + j) - 0.5 for j in range(N)], [0.2 * i - 0.3 * j for j in range(N)]) for i in range(5)
    ],
    sizes=[3, N, 3, 1, N],
)
def test_a_ragged_batch_is_each_samples_own_smaller_graph_bit_for_bit(
    weights: list[float], samples: list[tuple[list[float], list[float]]], sizes: list[int]
) -> None:
    w = [Value(x) for x in weights]

    def loss(xs: list[Value], ys: list[Value], scale: Value) -> tuple[Value, list[Value]]:
        parts = rnn_parts(w, xs, ys)
        return micrograd.sum(parts) * scale, parts

    step = micrograd.compile(
        loss, ([0.0] * N, [0.0] * N, 1.0), w, batched=True, ragged=True, reduction="sum", batch_axis=0
    )
    sizes = sizes[: len(samples)]
    xs, ys = np.array([s[0] for s in samples]), np.array([s[1] for s in samples])
    losses, grads = step.per_sample(xs, ys, 1.0 / np.array(sizes), sizes=sizes)
    reached = step.reached_by(sizes)
    for i, n in enumerate(sizes):
        want_loss, want_grads = eager(w, list(xs[i]), list(ys[i]), n)
        assert raw_bits(losses[i]) == raw_bits(want_loss)
        for j, g in enumerate(want_grads):
            assert reached[i, j] == (g is not None)
            assert raw_bits(grads[i, j]) == raw_bits(-0.0 if g is None else g)
    # the step's sum over the samples: the eager loop of backward() calls from zero (-0.0 adds nothing)
    total, summed = step(xs, ys, 1.0 / np.array(sizes), sizes=sizes)
    want = np.full(len(w), -0.0)  # (-0.0 + x is x: the first sample's own gradients)
    for i, n in enumerate(sizes):
        want = want + np.array([-0.0 if g is None else g for g in eager(w, list(xs[i]), list(ys[i]), n)[1]])
    assert raw_bits(summed) == raw_bits(want)
    assert total == pytest.approx(float(np.sum(losses)))
    assert step.forward(xs, ys, 1.0 / np.array(sizes), sizes=sizes) == total


def test_a_position_embedding_past_a_samples_end_gets_no_gradient() -> None:
    pos = [Value(0.1 * (k + 1)) for k in range(N)]  # one parameter per step: step k reads pos[k] only

    def loss(xs: list[Value], scale: Value) -> tuple[Value, list[Value]]:
        parts = [(x * p) ** 2 for x, p in zip(xs, pos)]
        return micrograd.sum(parts) * scale, parts

    step = micrograd.compile(loss, ([1.0] * N, 1.0), pos, batched=True, ragged=True, reduction="sum")
    sizes = [2, N]
    losses, grads = step.per_sample(np.ones((2, N)), [0.5, 1.0 / N], sizes=sizes)
    assert step.reached_by(sizes).tolist() == [[True, True, False, False, False], [True] * N]
    assert raw_bits(grads[0, 2:]) == raw_bits([-0.0] * 3) and grads[1, 4] != 0.0
    assert losses[0] == (0.1**2 + 0.2**2) * 0.5
    whole = step.per_sample(np.ones((2, N)), [1.0 / N] * 2)  # no sizes: every sample whole
    assert whole[0][0] == whole[0][1] == losses[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, N), min_size=1, max_size=4), min_size=1, max_size=6))
def test_reached_by_kept_per_pattern_is_the_rule_each_call(calls: list[list[int]]) -> None:
    """``reached_by`` keeps its answer per pattern of sizes: asked again (in any order, as a list
    or an array), the same booleans as the rule, read-only, and bad sizes still refused."""
    pos = [Value(0.1 * (k + 1)) for k in range(N)]

    def loss(xs: list[Value], scale: Value) -> tuple[Value, list[Value]]:
        parts = [(x * p) ** 2 for x, p in zip(xs, pos)]
        return micrograd.sum(parts) * scale, parts

    step = micrograd.compile(loss, ([1.0] * N, 1.0), pos, batched=True, ragged=True, reduction="sum")
    for sizes in calls + calls[::-1]:
        want = [[k < n for k in range(N)] for n in sizes]  # step k reads pos[k] only
        for asked in (sizes, np.array(sizes)):
            got = step.reached_by(asked)
            assert got.tolist() == want and not got.flags.writeable
        with pytest.raises(ValueError, match="list of ints"):
            step.reached_by(np.array(sizes, dtype=np.float64))
        with pytest.raises(ValueError, match="from 1 to"):
            step.reached_by([*sizes, N + 1])


def _parts_loss(xs: list[Value], scale: Value) -> tuple[Value, list[Value]]:
    parts = [x * x for x in xs]
    return micrograd.sum(parts) * scale, parts


def test_ragged_options_and_bad_calls_say_what_to_do() -> None:
    w = Value(1.0)
    with pytest.raises(ValueError, match="needs batched=True"):
        micrograd.compile(_parts_loss, ([1.0, 2.0], 1.0), [w], ragged=True)
    with pytest.raises(TypeError, match="True, False, 'mean' or 'sum'"):
        micrograd.compile(_parts_loss, ([1.0, 2.0], 1.0), [w], batched=True, ragged="yes")
    with pytest.raises(TypeError, match=r"return \(loss, parts\)"):
        micrograd.compile(lambda xs: xs[0] * w, ([1.0, 2.0],), [w], batched=True, ragged=True)
    with pytest.raises(TypeError, match="non-empty list of Values"):
        micrograd.compile(lambda xs: (xs[0] * w, [1.0]), ([1.0, 2.0],), [w], batched=True, ragged=True)
    with pytest.raises(CompileError, match="not nodes of the traced loss"):
        micrograd.compile(lambda xs: (xs[0] * w, [Value(3.0)]), ([1.0],), [w], batched=True, ragged=True)
    with pytest.raises(CompileError, match="not only through a sum"):
        micrograd.compile(_product_of_parts(w), ([1.0, 2.0],), [w], batched=True, ragged=True)
    step = micrograd.compile(_parts_loss, ([1.0, 2.0], 1.0), [w], batched=True, ragged=True)
    assert step.parts == 2
    with pytest.raises(ValueError, match="from 1 to the traced loss's 2 parts"):
        step.per_sample([[1.0, 2.0]], [1.0], sizes=[3])
    with pytest.raises(ValueError, match="one per sample"):
        step.per_sample([[1.0, 2.0]], [1.0], sizes=[1, 2])
    with pytest.raises(ValueError, match="list of ints"):
        step.per_sample([[1.0, 2.0]], [1.0], sizes=[1.5])
    plain = micrograd.compile(lambda xs: xs[0] * w, ([1.0],), [w], batched=True)
    with pytest.raises(TypeError, match="ragged step's"):
        plain.per_sample([[1.0]], sizes=[1])
    with pytest.raises(TypeError, match="ragged step's"):
        plain.reached_by([1])


def _product_of_parts(w: Value) -> Callable[[list[Value]], tuple[Value, list[Value]]]:
    """A loss that multiplies its parts together, not a sum of them: refused."""

    def loss(xs: list[Value]) -> tuple[Value, list[Value]]:
        a, b = xs[0] * w, xs[1] * w
        return a * b, [a, b]

    return loss


def test_a_cut_position_that_overflows_leaves_the_weights_gradients_alone() -> None:
    """A Linear layer's weights, read at every position, gather their gradients through strided
    views of a regular grid (``groups.grid_blocks``), and a sample's cut positions stay out of
    them: past a sample's end its inputs are huge, exp overflows there, and the backward's inf
    times a cut node's zero gradient is nan, which the mask keeps out of the sums."""
    from micrograd.ops import weighted_sum

    n_in, n_out, positions = 3, 4, 4
    rng = np.random.default_rng(7)
    weights = [[Value(float(rng.normal())) for _ in range(n_in)] for _ in range(n_out)]
    params = [w for row in weights for w in row]

    def parts_of(xs: list[Value]) -> list[Value]:
        cols = [xs[p * n_in : (p + 1) * n_in] for p in range(positions)]
        return [micrograd.sum(weighted_sum(row, col).exp() for row in weights) for col in cols]

    def loss(xs: list[Value]) -> tuple[Value, list[Value]]:
        parts = parts_of(xs)
        return micrograd.sum(parts), parts

    step = micrograd.compile(
        loss, (np.zeros(n_in * positions),), params, batched=True, ragged=True, reduction="sum"
    )
    sizes = [2, positions, 1]
    xs = rng.normal(size=(len(sizes), n_in * positions))
    for i, n in enumerate(sizes):
        xs[i, n * n_in :] = 1e300  # past the sample's end: exp(1e300 * w) is inf, or 0
    losses, grads = step.per_sample(xs, sizes=sizes)
    assert any(g.strided is not None for g in step._all_gathers())  # (the strided views ran)
    for i, n in enumerate(sizes):
        xv = [Value(float(x)) for x in xs[i, : n * n_in]]
        for p in params:
            p.grad = None
        want = micrograd.sum(parts_of(xv + [Value(0.0)] * ((positions - n) * n_in))[:n])
        want.backward()
        assert raw_bits(losses[i]) == raw_bits(want.data)
        assert raw_bits(grads[i]) == raw_bits([p.grad for p in params])


def test_a_parameter_no_sample_reaches_keeps_a_positive_zero_as_in_the_eager_loop() -> None:
    w, u = Value(5.0), Value(7.0)

    def loss(xs: list[Value]) -> tuple[Value, list[Value]]:
        parts = [w * xs[0], u * xs[1]]
        return micrograd.sum(parts), parts

    for reduction in ("sum", "mean"):
        step = micrograd.compile(
            loss, ([1.0, 1.0],), [w, u], batched=True, ragged=True, reduction=reduction, batch_axis=0
        )
        total, grads = step([[1.0, 1.0], [2.0, 3.0]], sizes=[1, 1])
        assert total == (5.0 + 10.0) / (2 if reduction == "mean" else 1)
        assert raw_bits(grads) == raw_bits([1.5 if reduction == "mean" else 3.0, 0.0])  # u: +0.0, not -0.0
    for p in (w, u):  # the eager loop over the samples' own graphs: u's .grad is never touched
        p.grad = 0.0
    for xs in ([1.0], [2.0]):
        loss([Value(x) for x in xs] + [Value(0.0)])[1][0].backward()
    assert raw_bits([w.grad, u.grad]) == raw_bits([3.0, 0.0])


def test_per_sample_gives_unread_parameters_the_zeros_its_docstring_says() -> None:
    w, u, v = Value(0.5), Value(2.0), Value(3.0)  # u: read by no graph; v: by the part sample 1 drops

    def parts(xs: list[Value]) -> list[Value]:
        return [w * xs[0], v * xs[1]]

    step = micrograd.compile(parts, ([1.0, 1.0],), [w, u, v], batched=True, ragged="sum", batch_axis=0)
    losses, grads = step.per_sample([[2.0, 3.0], [4.0, 5.0]], sizes=[2, 1])
    assert raw_bits(losses) == raw_bits([10.0, 2.0])
    assert raw_bits(grads[0]) == raw_bits([2.0, 0.0, 3.0])
    assert raw_bits(grads[1]) == raw_bits([4.0, 0.0, -0.0])  # u: +0.0 (never read); v: -0.0 (cut off)


def test_a_part_that_reaches_a_parameter_with_a_negative_zero_keeps_it() -> None:
    u = Value(-1.0)

    def loss(xs: list[Value]) -> tuple[Value, list[Value]]:
        parts = [xs[0] * 2.0, u * xs[1]]
        return micrograd.sum(parts), parts

    step = micrograd.compile(loss, ([1.0, 1.0],), [u], batched=True, ragged=True, reduction="sum")
    _, grads = step([[1.0, -0.0]], sizes=[2])
    assert raw_bits(grads) == raw_bits([-0.0])  # reached, its gradient is -0.0: kept, as backward() keeps it


def test_parts_that_read_no_input_are_refused_with_the_reason() -> None:
    w = Value(2.0)

    def loss(xs: list[Value]) -> tuple[Value, list[Value]]:
        parts = [w * w, w * w * w]
        return micrograd.sum(parts), parts

    with pytest.raises(CompileError, match=r"no part reads an input.*cannot cut.*without ragged=True"):
        micrograd.compile(loss, ([1.0],), [w], batched=True, ragged=True)


# ---- issue 47, item 2: a ragged loss cannot bake its traced size ------------------------------

XS = [[1.0, 2.0, 9.0], [1.0, 2.0, 3.0]]


def squares(w: Value, xs: list[Value]) -> list[Value]:
    return [(w * x) ** 2 for x in xs]


def eager_mean(w: Value, xs: list[float]) -> tuple[float, float]:
    """The eager engine's mean loss over the sample's own parts, as GPT.loss writes it."""
    w.grad = 0.0
    parts = squares(w, [Value(x) for x in xs])
    loss = micrograd.sum(parts) * (1.0 / len(parts))
    loss.backward()
    return loss.data, w.grad


def test_ragged_mean_divides_each_sample_by_its_own_size_bit_for_bit() -> None:
    w = Value(0.5)
    step = micrograd.compile(
        lambda xs: squares(w, xs), ([1.0] * 3,), [w], batched=True, reduction="sum", ragged="mean"
    )
    losses, grads = step.per_sample(XS, sizes=[2, 3])
    assert [(losses[i], grads[i, 0]) for i in range(2)] == [eager_mean(w, XS[0][:2]), eager_mean(w, XS[1])]
    assert (losses[0], grads[0, 0]) == (0.625, 2.5)  # the sample: 2.5, not 1.667
    assert step.per_sample(XS)[0].tolist() == [eager_mean(w, XS[0])[0], eager_mean(w, XS[1])[0]]
    total, _ = step(XS, sizes=[2, 3])
    assert total == losses[0] + losses[1]


def test_ragged_sum_adds_each_samples_own_parts() -> None:
    w = Value(0.5)
    step = micrograd.compile(lambda xs: squares(w, xs), ([1.0] * 3,), [w], batched=True, ragged="sum")
    losses, _ = step.per_sample(XS, sizes=[1, 3])
    assert losses.tolist() == [0.25, 0.25 + 1.0 + 2.25]


def test_a_loss_that_divides_by_the_traced_size_warns_at_trace_time() -> None:
    w = Value(0.5)

    def baked(xs: list[Value]) -> tuple[Value, list[Value]]:
        parts = squares(w, xs)
        return sum(parts) / len(parts), parts  # type: ignore[return-value]

    message = r"constant 3, the traced count.*ragged=\"mean\""
    with pytest.warns(micrograd.compiler.TracerWarning, match=message) as got:
        micrograd.compile(baked, ([1.0] * 3,), [w], batched=True, reduction="sum", ragged=True)
    assert got[0].filename == __file__
    with warnings.catch_warnings():  # the size given as an input: no word
        warnings.simplefilter("error")
        micrograd.compile(
            lambda xs, s: (micrograd.sum(p := squares(w, xs)) * s, p),
            ([1.0] * 3, 1.0),
            [w],
            batched=True,
            ragged=True,
        )


def test_ragged_mean_wants_a_list_of_values_and_says_so() -> None:
    w = Value(0.5)
    with pytest.raises(TypeError, match=r'ragged="mean"\) needs fn to return its parts'):
        micrograd.compile(
            lambda xs: micrograd.sum(squares(w, xs)), ([1.0] * 3,), [w], batched=True, ragged="mean"
        )
    with pytest.raises(TypeError, match="must be True, False, 'mean' or 'sum', got 'max'"):
        micrograd.compile(lambda xs: squares(w, xs), ([1.0] * 3,), [w], batched=True, ragged="max")
