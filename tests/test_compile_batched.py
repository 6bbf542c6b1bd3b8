"""Batched compiled replay (micrograd.compile(..., batched=True)) against the eager engine's loop
over the same samples: the moons model, a classifier's cross-entropy, random graphs of every op
(hypothesis), batch sizes 1, 7 and 64 from one trace, the reductions, and errors."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="micrograd.compile replays with numpy")

import micrograd  # noqa: E402
from micrograd import Function, Value  # noqa: E402
from micrograd.compiler import BatchedStep, CompiledStep, CompileError  # noqa: E402
from micrograd.compiler import compile as mg_compile  # noqa: E402
from nn import MLP, losses  # noqa: E402
from tests.test_compile import build, finite, programs  # noqa: E402
from tests.user_ops import Swish  # noqa: E402


def _values(x: Any) -> Any:
    return [_values(e) for e in x] if isinstance(x, list) else Value(x)


def eager_loop(
    fn: Callable[..., Value], batch: Sequence[Any], params: Sequence[Value], reduction: str = "mean"
) -> tuple[float, list[float]]:
    """The eager engine, sample by sample: each loss's backward() adds into .grad; the sum of
    the losses and of the gradients, divided by the batch size for the mean."""
    for p in params:
        p.grad = 0.0
    arrays = [np.asarray(x, dtype=float) for x in batch]
    total = 0.0
    for i in range(len(arrays[0])):
        loss = fn(*[_values(a[i].tolist()) for a in arrays])
        loss.backward()
        total += loss.data
    grads = [p.grad for p in params]
    for p in params:
        p.grad = 0.0
    n = len(arrays[0]) if reduction == "mean" else 1
    return total / n, [g / n for g in grads]


def equal(a: float, b: float) -> bool:
    """The same number, nan with nan (zeros of either sign: a sum that starts from 0.0 and one
    that starts from -0.0 may differ there only)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def rel_diff(a: Sequence[float], b: Sequence[float]) -> float:
    return max((abs(x - y) / max(abs(y), 1e-300) for x, y in zip(a, b) if x != y), default=0.0)


def moons_batch(n: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 2)), np.where(rng.random(n) > 0.5, 1.0, -1.0)


def moons_model() -> tuple[MLP, Callable[..., Value]]:
    model = MLP(2, [16, 16, 1], seed=1337)
    params = model.parameters()

    def loss_fn(x: list[Value], t: Value) -> Value:  # one sample's hinge loss and the L2 term
        return (1 + -t * model(x)).relu() + 1e-4 * micrograd.sum(p * p for p in params)

    return model, loss_fn


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_moons_model_equals_the_eager_loop_for_batch_sizes_1_7_64_from_one_trace(reduction: str) -> None:
    model, loss_fn = moons_model()
    params = model.parameters()
    calls = []

    def counted(x: list[Value], t: Value) -> Value:
        calls.append(1)
        return loss_fn(x, t)

    X, t = moons_batch(1, seed=0)
    step = mg_compile(counted, (X[0], t[0]), params=params, batched=True, reduction=reduction)
    assert isinstance(step, BatchedStep) and isinstance(step, CompiledStep)
    for size in (1, 7, 64, 7, 1):  # a new batch size: no new trace, the same numbers
        Xb, tb = moons_batch(size, seed=size)
        loss, grads = step(Xb, tb)
        assert step.batch_size == size and grads.shape == (len(params),)
        e_loss, e_grads = eager_loop(loss_fn, (Xb, tb), params, reduction)
        # the engine's floats per sample, added over the samples in the loop's order: bit for bit
        assert equal(loss, e_loss), (size, loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), rel_diff(grads.tolist(), e_grads)
    assert len(calls) == 1


def test_backward_adds_the_mean_gradient_into_grad_and_forward_gives_the_loss() -> None:
    model, loss_fn = moons_model()
    params = model.parameters()
    X, t = moons_batch(10, seed=3)
    step = mg_compile(loss_fn, (X[0], t[0]), params=params, batched=True)
    loss, grads = step(X, t)
    assert step.forward(X, t) == loss
    for p in params:
        p.grad = 0.0
    assert step.backward(X, t) == loss
    assert step.backward(X.tolist(), t.tolist()) == loss  # nested lists work as well as arrays
    assert [p.grad for p in params] == [2 * g for g in grads.tolist()]
    summed = mg_compile(loss_fn, (X[0], t[0]), params=params, batched=True, reduction="sum")
    s_loss, s_grads = summed(X, t)
    assert s_loss / 10 == loss and (s_grads / 10 == grads).all()  # mean: the sum over the batch / 10
    assert repr(step).startswith("BatchedStep(") and "reduction='mean'" in repr(step)


def test_parameters_are_read_at_every_call_and_train_like_the_eager_loop() -> None:
    model, loss_fn = moons_model()
    twin, twin_fn = moons_model()
    params, twin_params = model.parameters(), twin.parameters()
    X, t = moons_batch(1, seed=0)
    step = mg_compile(loss_fn, (X[0], t[0]), params=params, batched=True)
    for k in range(3):
        Xb, tb = moons_batch(7 + 10 * k, seed=20 + k)
        loss, grads = step(Xb, tb)
        e_loss, e_grads = eager_loop(twin_fn, (Xb, tb), twin_params)
        assert equal(loss, e_loss) and all(equal(g, e) for g, e in zip(grads.tolist(), e_grads))
        for p, q, g in zip(params, twin_params, grads.tolist()):
            p.data -= 0.1 * g
            q.data -= 0.1 * g


def test_cross_entropy_classifier_with_one_hot_targets() -> None:
    """A 10-class MLP with nn.losses.log_softmax, as the digits demo trains it.  log_softmax
    subtracts the largest logit, a number read while tracing and so fixed in the step; the
    eager loop subtracts each sample's own, which changes the last bits: within 1e-12."""
    model = MLP(8, [12, 10], seed=3)
    params = model.parameters()

    def loss_fn(x: list[Value], onehot: list[Value]) -> Value:
        logp = losses.log_softmax(model(x))
        return -micrograd.sum(t * lp for t, lp in zip(onehot, logp))

    rng = np.random.default_rng(5)
    X = rng.random((64, 8))
    Y = np.eye(10)[rng.integers(0, 10, 64)]
    step = mg_compile(loss_fn, (X[0], Y[0]), params=params, batched=True)
    for size in (1, 7, 64):
        loss, grads = step(X[:size], Y[:size])
        e_loss, e_grads = eager_loop(loss_fn, (X[:size], Y[:size]), params)
        assert rel_diff([loss], [e_loss]) <= 1e-12
        assert rel_diff(grads.tolist(), e_grads) <= 1e-12
        # each sample's loss is nn.losses.cross_entropy's for its class
        per_sample = [
            losses.cross_entropy([model(x)], [int(c)]).data
            for x, c in zip(X[:size].tolist(), Y[:size].argmax(1))
        ]
        assert math.isclose(loss, sum(per_sample) / size, rel_tol=1e-12)


def test_cross_entropy_of_a_traced_class_label_as_issue_15_writes_it() -> None:
    """compile(lambda x, y: losses.cross_entropy([model(x)], [y]), (X[0], y[0]), batched=True):
    the label is traced as a Value, and losses.Pick selects each sample's own class inside the
    graph.  The eager loop over the samples with int classes, within 1e-12 (log_softmax's traced
    maximum, as above); the same numbers as one-hot targets; a label no class has gives nan."""
    model = MLP(8, [12, 10], activation="relu", seed=3)
    params = model.parameters()
    rng = np.random.default_rng(5)
    X, y = rng.random((64, 8)), rng.integers(0, 10, 64)
    step = mg_compile(
        lambda x, c: losses.cross_entropy([model(x)], [c]),
        example_inputs=(X[0], y[0]),
        params=params,
        batched=True,
    )

    def by_int(x: list[Value], c: Value) -> Value:  # the class as a Python int, chosen outside the graph
        return losses.cross_entropy([model(x)], [int(c.data)])

    def by_onehot(x: list[Value], onehot: list[Value]) -> Value:
        return -micrograd.sum(t * lp for t, lp in zip(onehot, losses.log_softmax(model(x))))

    onehot = mg_compile(by_onehot, (X[0], np.eye(10)[y[0]]), params=params, batched=True)
    for size in (1, 7, 64):
        loss, grads = step(X[:size], y[:size])
        e_loss, e_grads = eager_loop(by_int, (X[:size], y[:size]), params)
        assert rel_diff([loss], [e_loss]) <= 1e-12
        assert rel_diff(grads.tolist(), e_grads) <= 1e-12
        o_loss, o_grads = onehot(X[:size], np.eye(10)[y[:size]])
        assert loss == o_loss and grads.tolist() == o_grads.tolist()
    bad = y[:7].astype(float)
    bad[3] = 10.0
    loss, grads = step(X[:7], bad)
    assert math.isnan(loss) and np.isnan(grads).any()


class FirstRowOnly(Function):
    """Runs on floats and on one row of numbers, not on a batch of rows."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x if np.ndim(x) < 2 else x[0]

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g


def test_user_functions_run_batched_or_are_named() -> None:
    w = Value(0.7)

    def loss_fn(x: list[Value]) -> Value:
        return micrograd.sum(Swish.apply(w * xi) for xi in x)

    step = mg_compile(loss_fn, ([0.1, 0.2, 0.3],), params=[w], batched=True)
    X = np.linspace(-2, 2, 21).reshape(7, 3)
    loss, grads = step(X)
    e_loss, e_grads = eager_loop(loss_fn, (X,), [w])
    assert equal(loss, e_loss) and equal(grads[0], e_grads[0])
    mg_compile(lambda x: FirstRowOnly.apply(x * w), (1.0,), params=[w])  # fine unbatched
    with pytest.raises(CompileError, match=r"FirstRowOnly\.forward"):
        mg_compile(lambda x: FirstRowOnly.apply(x * w), (1.0,), params=[w], batched=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    programs(),
    st.lists(finite, min_size=7, max_size=7),
    st.lists(st.lists(finite, min_size=3, max_size=3), min_size=1, max_size=9),
    st.sampled_from(["mean", "sum"]),
)
def test_random_graphs_equal_the_eager_loop(
    program: Any, param_data: list[float], samples: list[list[float]], reduction: str
) -> None:
    n_params, n_inputs = program[0], program[1]
    params = [Value(d) for d in param_data[:n_params]]
    fn = build(program, params)
    X = np.array([s[:n_inputs] for s in samples]).reshape(len(samples), n_inputs)
    step = mg_compile(fn, (X[0],), params=params, batched=True, reduction=reduction, batch_axis=0)
    for batch in (X, X[:1]):
        loss, grads = step(batch)
        e_loss, e_grads = eager_loop(fn, (batch,), params, reduction)
        assert equal(loss, e_loss), (loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), (grads, e_grads)


# ---- batch invariance: what every sample shares runs once ---------------------------------------


def _shared(step: CompiledStep) -> list[tuple[bool, bool]]:
    """For each group of the plan whose values the samples share: (its contributions are shared too)."""
    return [grp.narrow for _, grp in step._groups if grp.shared]


def _l2(params: Sequence[Value]) -> Value:
    return 1e-3 * micrograd.sum(p * p for p in params)


def _hinge(model: MLP, x: list[Value], t: Value) -> Value:
    return (1 + -t * model(x)).relu()


SHARED_SUBGRAPHS: dict[str, Callable[[MLP], Callable[..., Value]]] = {
    # the L2 term, added to each sample's loss: computed once, its gradient the same for every sample
    "L2 term": lambda m: lambda x, t: _hinge(m, x, t) + _l2(m.parameters()),
    # numbers only (made into constants by the trace), and a parameter through several ops
    "constants and one parameter": lambda m: (
        lambda x, t: (
            _hinge(m, x, t) * (Value(2.0).exp() + Value(0.5).log()) + (m.parameters()[0] * 3).tanh().exp()
        )
    ),
    # a parameter-only node whose gradient differs between samples: computed once, backward per sample
    "reg * hinge": lambda m: lambda x, t: _l2(m.parameters()) * _hinge(m, x, t) + _hinge(m, x, t),
    # a loss that is the same for every sample
    "no input at all": lambda m: lambda x, t: _l2(m.parameters()),
    # a user Function on a parameter-only node: user ops always run per sample
    "user op on parameters": lambda m: lambda x, t: _hinge(m, x, t) * Swish.apply(_l2(m.parameters())),
}


@pytest.mark.parametrize("case", sorted(SHARED_SUBGRAPHS))
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_shared_subgraphs_run_once_and_equal_the_eager_loop_bit_for_bit(case: str, reduction: str) -> None:
    model = MLP(2, [5, 1], seed=7)
    params = model.parameters()
    loss_fn = SHARED_SUBGRAPHS[case](model)
    X, t = moons_batch(64, seed=11)
    step = mg_compile(loss_fn, (X[0], t[0]), params=params, batched=True, reduction=reduction)
    narrow = _shared(step)
    assert narrow, "the plan computes nothing once"
    if case == "reg * hinge":
        assert not all(narrow), "the regulariser's gradient differs between samples"
    elif case != "user op on parameters":
        assert any(narrow)
    for size in (1, 7, 64):
        loss, grads = step(X[:size], t[:size])
        e_loss, e_grads = eager_loop(loss_fn, (X[:size], t[:size]), params, reduction)
        assert equal(loss, e_loss), (case, size, loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), rel_diff(grads.tolist(), e_grads)


def test_an_unbatched_step_has_no_shared_groups_and_the_same_plan() -> None:
    model = MLP(2, [5, 1], seed=7)
    loss_fn = SHARED_SUBGRAPHS["L2 term"](model)
    X, t = moons_batch(1, seed=0)
    batched = mg_compile(loss_fn, (X[0], t[0]), params=model.parameters(), batched=True)
    unbatched = mg_compile(loss_fn, (X[0], t[0]), params=model.parameters())
    assert _shared(unbatched) == [] and len(_shared(batched)) >= 3  # the products, their sum, 1e-3 * sum
    assert unbatched(X[0], t[0])[0] == batched(X, t)[0]


@st.composite
def with_shared_part(draw: st.DrawFn) -> tuple[Any, Any, str]:
    """A random graph of the inputs and parameters, and one of the parameters only (so shared
    by every sample), joined into the loss in one of several ways."""
    program = draw(programs())
    shared = draw(programs().filter(lambda p: p[1] == 0))
    return program, shared, draw(st.sampled_from(["+", "*", "* swish", "- relu"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    with_shared_part(),
    st.lists(finite, min_size=7, max_size=7),
    st.lists(st.lists(finite, min_size=3, max_size=3), min_size=7, max_size=7),
)
def test_random_graphs_with_parameter_only_parts_equal_the_eager_loop(
    programs_: Any, param_data: list[float], samples: list[list[float]]
) -> None:
    program, shared, join = programs_
    params = [Value(d) for d in param_data[: max(program[0], shared[0])]]
    per_sample, once = build(program, params), build(shared, params)

    def fn(xs: list[Value]) -> Value:
        a, b = per_sample(xs), once([])
        if join == "+":
            return a + b
        if join == "*":
            return a * b
        return a * Swish.apply(b) if join == "* swish" else a - b.relu()

    n_inputs = program[1]
    X = np.array([s[:n_inputs] for s in samples]).reshape(len(samples), n_inputs)
    step = mg_compile(fn, (X[0],), params=params, batched=True)
    for batch in (X, X[:1]):
        loss, grads = step(batch)
        e_loss, e_grads = eager_loop(fn, (batch,), params)
        assert equal(loss, e_loss), (loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), (grads, e_grads)


def test_wrong_shapes_and_arguments_are_clear_errors() -> None:
    w = Value(1.0)
    step = mg_compile(lambda x, y: micrograd.sum(x) * w - y, ([1.0, 2.0], 0.0), params=[w], batched=True)
    assert step(np.ones((3, 2)), np.zeros(3))[0] == 2.0
    with pytest.raises(
        ValueError, match=r"input 0 has shape \(2,\).*\(batch, 2\).*one sample: give a batch of one"
    ):
        step([1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match=r"input 0 has shape \(3, 3\), but a batched step"):
        step(np.ones((3, 3)), np.zeros(3))
    with pytest.raises(ValueError, match=r"input 1 has shape \(3, 1\).*\(batch,\)"):
        step(np.ones((3, 2)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="input 1 holds 4 samples but input 0 holds 3"):
        step(np.ones((3, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="the batch is empty"):
        step(np.ones((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="traced with 2 inputs, got 1"):
        step(np.ones((3, 2)))
    with pytest.raises(TypeError, match="input 0 must be a number"):
        step("ab", np.zeros(3))
    with pytest.raises(ValueError, match=r"reduction=\.\.\.\) must be 'mean' or 'sum', got 'max'"):
        mg_compile(lambda x: x * w, 1.0, params=[w], batched=True, reduction="max")
    with pytest.raises(ValueError, match="needs batched=True"):
        mg_compile(lambda x: x * w, 1.0, params=[w], reduction="sum")
    with pytest.raises(ValueError, match="at least one input"):
        mg_compile(lambda: w * w, (), params=[w], batched=True)
    with pytest.raises(TypeError, match=r"batched=\.\.\.\) must be True or False"):
        mg_compile(lambda x: x * w, 1.0, params=[w], batched=1)  # type: ignore[arg-type]


def test_samples_without_numbers_and_losses_that_are_a_parameter() -> None:
    w = Value(3.0)
    step = mg_compile(lambda x: w, (np.zeros(0),), params=[w], batched=True)  # the loss is w itself
    loss, grads = step(np.zeros((5, 0)))
    assert loss == 3.0 and grads.tolist() == [1.0]
    summed = mg_compile(lambda x: w * w, (np.zeros(0),), params=[w], batched=True, reduction="sum")
    loss, grads = summed(np.zeros((4, 0)))
    assert loss == 36.0 and grads.tolist() == [24.0]
    no_params = mg_compile(lambda x: x * x, 2.0, batched=True)
    loss, grads = no_params([1.0, 2.0, 3.0])
    assert loss == 14.0 / 3 and grads.shape == (0,)


def test_a_sum_sends_each_terms_gradient_straight_or_through_a_gather_and_the_numbers_stay_the_engines() -> (
    None
):
    """A sum whose terms are a node used once (its gradient goes straight), a node used twice
    (through contribution slots, then gathered), a parameter and a number; subtracted terms too.
    Repeated calls, with the arrays kept from call to call, give the same numbers."""
    from micrograd.compiler.kernels import CONTRIB, GVALS

    a, b = Value(0.5), Value(-1.5)
    params = [a, b]

    def fn(x: Value, y: Value) -> Value:
        once, twice = x * a, y * b
        s = once - twice + b + 2.0
        return (s * twice).relu() + (s - x).relu() * s

    X, Y = moons_batch(9, seed=3)[0].T
    step = mg_compile(fn, (X[0], Y[0]), params=params, batched=True)
    sums = [grp for _, grp in step._groups if grp.fn is None and len(grp.args[0]) == 4]
    assert len(sums) == 1
    kinds = {edge[0] for edge in sums[0].edges}  # type: ignore[index]
    assert GVALS in kinds and CONTRIB in kinds  # terms straight into gradients, and gathered
    e_loss, e_grads = eager_loop(fn, (X, Y), params)
    for _ in range(3):
        loss, grads = step(X, Y)
        assert equal(loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), rel_diff(grads.tolist(), e_grads)
    unbatched = mg_compile(fn, (X[0], Y[0]), params=params)
    e_loss, e_grads = eager_loop(fn, (X[:1], Y[:1]), params, "sum")
    for _ in range(2):
        loss, grads = unbatched(X[0], Y[0])
        assert equal(loss, e_loss) and grads.tolist() == e_grads


# (the loss, whether some parameter's shared contributions come first in the eager order)
PREFIXES: dict[str, tuple[Callable[[Value, Value, Value], Value], bool]] = {
    # reverse topological order: the L2 term's two contributions to a and to b come first
    "hinge + L2": (lambda x, a, b: (x * a + b).relu() + 1e-3 * (a * a + b * b), True),
    # here the sample's own contribution comes first: gathered with the others, per sample
    "L2 + hinge": (lambda x, a, b: 1e-3 * (a * a + b * b) + (x * a + b).relu(), False),
    # a's shared contribution comes after its own, b's (through exp) before it
    "shared on both sides": (lambda x, a, b: (a * a).tanh() * 0.5 + (x * a + b).relu() * 2 + b.exp(), True),
}


@pytest.mark.parametrize("case", sorted(PREFIXES))
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_a_parameters_shared_contributions_add_up_once_then_join_each_samples_own_bit_for_bit(
    case: str, reduction: str
) -> None:
    """A parameter whose contributions the samples share (the L2 term's) before its last one,
    which differs between samples: the shared ones add up once, into the parameter's prefix,
    and the prefix is added to each sample's own contribution, as the eager engine adds them
    (magnitudes far apart, so that another order of the additions shows in the last bits)."""
    loss_of, prefixed = PREFIXES[case]
    a, b = Value(3.0e7), Value(-2.5e-3)
    params = [a, b]

    def fn(x: Value) -> Value:
        return loss_of(x, a, b)

    step = mg_compile(fn, (1.0,), params=params, batched=True, reduction=reduction)
    assert bool(step._prefix_gathers) is prefixed
    rng = np.random.default_rng(5)
    X = rng.standard_normal(64) * 10.0 ** rng.integers(-9, 9, 64)
    for size in (1, 2, 7, 64, 2):
        loss, grads = step(X[:size])
        e_loss, e_grads = eager_loop(fn, (X[:size],), params, reduction)
        assert equal(loss, e_loss), (size, loss, e_loss)
        assert all(equal(g, e) for g, e in zip(grads.tolist(), e_grads)), (size, grads, e_grads)


def test_the_moons_model_reads_its_weights_as_views_and_takes_its_l2_gradient_as_a_prefix() -> None:
    model, loss_fn = moons_model()
    X, t = moons_batch(1, seed=0)
    step = mg_compile(loss_fn, (X[0], t[0]), params=model.parameters(), batched=True)
    step(X, t)  # (a batched step binds the plan to its arrays, read below, at its first call)
    n = len(model.parameters())
    prefixed = sum(np.arange(n)[g.targets].size for g in step._prefix_gathers)
    assert prefixed == n and not step._param_gathers  # the hinge's contribution last, straight in
    layers = [grp for _, grp in step._groups if grp.fn is not None and grp.fn.name == "*" and not grp.shared]
    assert [grp.stop - grp.start for grp in layers[:3]] == [32, 256, 16]  # each layer's products
    assert all(type(grp.rows[0]) is slice for grp in layers[:3])  # their weights: consecutive slots
    # each layer's sum reads its bias and products as one block, and hands them its gradient as one
    sums = [grp for _, grp in step._groups if grp.fn is None and not grp.shared and len(grp.args[0]) > 2]
    assert [grp.args[0].shape for grp in sums] == [(3, 16), (17, 16), (17, 1)]
    assert all(type(grp.rows[0]) is slice for grp in sums)
    assert all(any(key is ... for _, key, _ in grp.into) for grp in sums)
    assert all(type(grp.edges[0][1]) is slice for grp in layers[:3])  # weight gradients: one block
    # the hidden layer's gradients: gathered from what the products' backward returned, no copy
    (hidden,) = [gather for gathers in step._gathers.values() for gather in gathers]
    assert hidden.source is not None and hidden.source[0] is layers[1] and hidden.slots.shape == (16, 16)


def test_a_gather_reads_an_engine_ops_gradients_where_the_op_made_them() -> None:
    """A node whose contributions all come from one group of an engine op is gathered from the
    gradients the op returned (a number, here ``h ** 0``'s 0.0, is broadcast), not from a copy
    in the contribution slots; where they come from two groups, from the copies.  Either way,
    the eager loop's numbers, signed zeros included."""
    a = Value(0.7)

    def one_group(x: list[Value]) -> Value:
        h = x[0] * a
        return h**0.0 * 3.0 + h**0.0 * -2.0 + (x[1] * a).relu()

    def two_groups(x: list[Value]) -> Value:
        h = x[0] * a
        return h**0.0 * 3.0 + h.tanh() + (x[1] * a).relu()

    X = moons_batch(5, seed=8)[0]
    for fn, at_source in ((one_group, True), (two_groups, False)):
        step = mg_compile(fn, (X[0].tolist(),), params=[a], batched=True)
        for size in (5, 1):
            loss, grads = step(X[:size])
            e_loss, e_grads = eager_loop(fn, (X[:size],), [a])
            assert equal(loss, e_loss) and grads.tolist() == e_grads
            assert math.copysign(1.0, grads[0]) == math.copysign(1.0, e_grads[0])
        # (where a gather reads: decided as the step binds the plan to a batch, at its first call)
        gathers = [gather for gathers in step._gathers.values() for gather in gathers]
        assert len(gathers) == 1 and (gathers[0].source is not None) is at_source


def _layer_losses() -> dict[str, tuple[Callable[..., Value], list[Value]]]:
    """Losses of a layer of three neurons on two inputs, ``b + w . x``, laid out or not (place_blocks)."""
    rng = np.random.default_rng(11)
    w = [
        [Value(float(v)) for v in row]
        for row in rng.standard_normal((3, 2)) * 10.0 ** rng.integers(-6, 6, (3, 2))
    ]
    b = [Value(float(v)) for v in rng.standard_normal(3) * 1e3]
    flat = [p for row, bj in zip(w, b) for p in (*row, bj)]

    def layer(x: Any, bias: Sequence[Value]) -> list[Value]:
        return [micrograd.dot(row, x, bj) for row, bj in zip(w, bias)]

    def block(x: Any) -> Value:  # the layout applies
        return micrograd.sum(h.relu() * h for h in layer(x, b))

    def shared_bias(x: Any) -> Value:  # one bias in every neuron: it cannot sit before each
        return micrograd.sum(h.tanh() for h in layer(x, [b[0]] * 3))

    def products_read_twice(x: Any) -> Value:  # the products also read by another op
        hs = layer(x, b)
        return micrograd.sum(hs) + hs[1]._prev[2].relu() * 3.0

    def subtracted(x: Any) -> Value:  # terms with signs: multiplied in place, so gathered
        return micrograd.sum((bj - row[0] * x[0] - row[1] * x[1]).relu() for row, bj in zip(w, b))

    cases = [block, shared_bias, products_read_twice, subtracted]
    return {fn.__name__.replace("_", " "): (fn, flat) for fn in cases}


@pytest.mark.parametrize("case", sorted(_layer_losses()))
def test_a_sum_reads_a_layers_bias_and_products_as_one_block_or_gathers_them_with_the_same_numbers(
    case: str,
) -> None:
    """slots.place_blocks puts a layer's biases right before its products, laid out term by term, so that
    the neurons' sum reads them as one view; where that cannot be (a bias in two sums, terms
    with signs) the terms are gathered.  Either way: the eager engine's numbers, bit for bit."""
    fn, params = _layer_losses()[case]
    X = moons_batch(7, seed=4)[0] * 1e3
    step = mg_compile(fn, (X[0].tolist(),), params=params, batched=True)
    layer_sum = next(grp for _, grp in step._groups if grp.fn is None and grp.args[0].shape == (3, 3))
    assert (type(layer_sum.rows[0]) is slice) is (case in ("block", "products read twice"))
    for size in (1, 7, 3):
        loss, grads = step(X[:size])
        e_loss, e_grads = eager_loop(fn, (X[:size],), params)
        assert equal(loss, e_loss) and all(equal(g, e) for g, e in zip(grads.tolist(), e_grads))
    unbatched = mg_compile(fn, (X[0].tolist(),), params=params)
    loss, grads = unbatched(X[0])
    e_loss, e_grads = eager_loop(fn, (X[:1],), params, "sum")
    assert equal(loss, e_loss) and all(equal(g, e) for g, e in zip(grads.tolist(), e_grads))


# ---- compile in named phases: trace, plan (with optional passes), run --------------------------


@pytest.mark.parametrize("share", [True, False])
def test_the_plans_optional_passes_change_the_work_not_the_numbers(share: bool) -> None:
    """trace -> plan -> run by hand: with the layout pass off, the step gathers copies where it
    read views; with the share pass off, it computes per sample what the samples share.  Its
    numbers stay the eager loop's, bit for bit."""
    from micrograd.compiler.plan import Plan, make_plan
    from micrograd.compiler.trace import trace

    model, loss_fn = moons_model()
    params = model.parameters()
    X, t = moons_batch(7, seed=2)
    views = {}
    for layout in (True, False):
        plan = make_plan(trace(loss_fn, (X[0], t[0]), params), batched=True, share=share, layout=layout)
        assert isinstance(plan, Plan)
        step = BatchedStep(plan)
        groups = [grp for _, grp in step._groups]
        assert any(grp.shared for grp in groups) is share
        views[layout] = sum(type(rows) is slice for grp in groups for rows in grp.rows)
        loss, grads = step(X, t)
        e_loss, e_grads = eager_loop(loss_fn, (X, t), params)
        assert equal(loss, e_loss) and all(equal(g, e) for g, e in zip(grads.tolist(), e_grads))
        unbatched = CompiledStep(make_plan(trace(loss_fn, (X[0], t[0]), params), layout=layout))
        loss, grads = unbatched(X[0], t[0])
        e_loss, e_grads = eager_loop(loss_fn, (X[:1], t[:1]), params, "sum")
        assert equal(loss, e_loss) and all(equal(g, e) for g, e in zip(grads.tolist(), e_grads))
    assert views[True] > views[False]  # the weights and the layers' sums read as views


def test_the_plan_names_its_parts() -> None:
    """Groups are keyed by a named tuple (level, op, ...), edges and gather sources too: no
    positional keys to decode."""
    from micrograd.compiler.graph import read_graph
    from micrograd.compiler.group_nodes import GroupKey, group_nodes
    from micrograd.compiler.kernels import Edge
    from micrograd.compiler.sharing import Sharing
    from micrograd.compiler.trace import trace

    w, b = Value(0.5), Value(-1.0)
    graph = read_graph(trace(lambda x: (w * x + b).tanh() - w * 2.0, (3.0,), [w, b]))
    keys, groups, _ = group_nodes(graph, Sharing())
    assert all(isinstance(k, GroupKey) for k in keys)
    assert [(k.level, k.op.name if k.op else "sum", len(groups[k])) for k in keys] == [
        (1, "*", 2),  # w * x and w * 2.0: one op, one group, the constant 2.0 an operand
        (2, "sum", 1),  # w*x + b
        (3, "tanh", 1),
        (4, "sum", 1),  # tanh(...) - w*2.0: a sum with signs
    ]
    step = mg_compile(lambda x: (w * x + b).tanh() - w * 2.0, (3.0,), params=[w, b])
    edges = [e for _, grp in step._groups for e in grp.edges if e is not None]
    assert edges and all(isinstance(e, Edge) for e in edges)


def test_no_function_of_the_compile_package_runs_over_60_lines() -> None:
    import ast
    from pathlib import Path

    package = Path(micrograd.__file__).parent / "compiler"
    long = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > 60:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert len(list(package.glob("*.py"))) >= 8 and not long, long
