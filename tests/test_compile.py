"""Compiled replay (micrograd.compile) against the eager engine: the demo's training step,
random graphs of every op (hypothesis), edge values, new data after tracing, and errors."""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="micrograd.compile replays with numpy")

import micrograd  # noqa: E402
from micrograd import Value  # noqa: E402
from micrograd.compiler import CompiledStep, CompileError, TracerWarning  # noqa: E402
from micrograd.compiler import compile as mg_compile  # noqa: E402
from micrograd.compiler.kernels import ordered_sum  # noqa: E402
from tests.test_engine_numerics import give_grad  # noqa: E402


def eager(
    fn: Callable[..., Value], inputs: Sequence[Any], params: Sequence[Value]
) -> tuple[float, list[float]]:
    """The eager engine's loss and parameter gradients for these inputs."""
    for p in params:
        p.grad = 0.0
    args = [np.asarray(x, dtype=float).tolist() for x in inputs]
    wrapped = [_values(a) for a in args]
    loss = fn(*wrapped)
    loss.backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = 0.0
    return loss.data, grads


def _values(x: Any) -> Any:
    return [_values(e) for e in x] if isinstance(x, list) else Value(x)


def same(a: float, b: float) -> bool:
    """The same float, bit for bit: nan with nan, and zeros of the same sign.  Replay runs the
    ops' own forward and backward, with the float functions applied element by element, and
    adds in the eager order, so nothing less is expected."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def close(a: float, b: float, rel: float) -> bool:
    """Equal up to ``rel`` (for a different engine, such as PyTorch, which adds in its own order)."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


# ---- the demo's step, with a hand-written MLP ----------------------------------------------------


class TinyMLP:
    """micrograd's MLP written inline: sum((w*x), b) per neuron, ReLU hidden layers."""

    def __init__(self, sizes: Sequence[int], seed: int) -> None:
        r = random.Random(seed)
        self.layers = [
            [([Value(r.uniform(-1, 1)) for _ in range(a)], Value(0.0)) for _ in range(b)]
            for a, b in itertools.pairwise(sizes)
        ]

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for w, b in layer for p in [*w, b]]

    def __call__(self, x: Sequence[Any]) -> Value:
        for i, layer in enumerate(self.layers):
            x = [sum((wi * xi for wi, xi in zip(w, x)), b) for w, b in layer]
            if i < len(self.layers) - 1:
                x = [v.relu() for v in x]
        return x[0]


def svm_loss(model: Callable[[Any], Value], params: list[Value]) -> Callable[..., Value]:
    def loss_fn(points: Any, y: Any) -> Value:
        scores = [model(x) for x in points]
        losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        return data_loss + 1e-4 * sum(p * p for p in params)

    return loss_fn


def moons_like(n: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 2)), np.where(rng.random(n) > 0.5, 1.0, -1.0)


def test_demo_step_matches_eager_exactly_and_trains_the_same() -> None:
    model = TinyMLP([2, 8, 8, 1], seed=1)
    params = model.parameters()
    loss_fn = svm_loss(model, params)
    X, y = moons_like(30, seed=0)
    step = mg_compile(loss_fn, (X, y), params=params)
    assert isinstance(step, CompiledStep)
    twin = TinyMLP([2, 8, 8, 1], seed=1)  # trained eagerly, side by side
    twin_params = twin.parameters()
    twin_fn = svm_loss(twin, twin_params)
    for k in range(4):
        Xk, yk = moons_like(30, seed=10 + k)  # new data at every step
        loss, grads = step(Xk, yk)
        e_loss, e_grads = eager(twin_fn, (Xk, yk), twin_params)
        # + * neg relu only: the same IEEE operations in the same order, so bit for bit
        assert loss == e_loss
        assert grads.tolist() == e_grads
        for p, q, g in zip(params, twin_params, grads.tolist()):
            p.data -= 0.1 * g
            q.data -= 0.1 * g


def test_backward_accumulates_into_grad_and_forward_gives_the_loss() -> None:
    model = TinyMLP([2, 4, 1], seed=2)
    params = model.parameters()
    loss_fn = svm_loss(model, params)
    X, y = moons_like(10, seed=3)
    step = mg_compile(loss_fn, (X, y), params=params)
    loss, grads = step(X, y)
    assert step.forward(X, y) == loss
    assert step.backward(X, y) == loss
    assert step.backward(X, y) == loss
    assert [p.grad for p in params] == [2 * g for g in grads.tolist()]


@pytest.mark.parametrize("start", [0.0, -0.0, 1.5, "a sum of zeros"])
@pytest.mark.parametrize("g", [0.0, -0.0, 2.0])
def test_backward_adds_into_grad_as_the_eager_backward_does(start: object, g: float) -> None:
    """Signed zeros as backward() leaves them: a fresh 0.0 takes the gradient as it is, a .grad
    that holds a sum of zeros adds it (0.0 + -0.0 is 0.0), and a parameter the loss does not
    read keeps its .grad, -0.0 included."""

    def fresh() -> tuple[Value, Value]:
        w, unused = Value(1.0), Value(1.0)
        for p in (w, unused):
            give_grad(p, start)
        return w, unused

    w, unused = fresh()
    step = mg_compile(lambda x: w * x[0], ([1.0],), params=[w, unused])
    step.backward([g])
    eager_w, eager_unused = fresh()
    (eager_w * g).backward()
    for got, want in ((w.grad, eager_w.grad), (unused.grad, eager_unused.grad)):
        assert (got, math.copysign(1.0, got)) == (want, math.copysign(1.0, want))


def test_nn_mlp_with_optimizer_matches_eager_training() -> None:
    nn = pytest.importorskip("nn", reason="the nn package provides MLP, losses and optimizers")
    X, y = moons_like(25, seed=5)
    labels = [int(v) for v in y]

    def make() -> tuple[Any, Callable[[Any], Value], Any]:
        model = nn.MLP(2, [8, 8, 1], seed=7)

        def loss_fn(points: Any) -> Value:
            scores = [model(p) for p in points]
            return nn.losses.hinge(scores, labels) + 1e-4 * sum(p * p for p in model.parameters())

        return model, loss_fn, nn.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    model, loss_fn, opt = make()
    twin, twin_fn, twin_opt = make()
    step = mg_compile(loss_fn, X, params=model.parameters())
    for _ in range(5):
        opt.zero_grad()
        loss = step.backward(X)
        twin_opt.zero_grad()
        e_loss = twin_fn(X.tolist())
        e_loss.backward()
        assert loss == e_loss.data
        assert [p.grad for p in model.parameters()] == [p.grad for p in twin.parameters()]
        opt.step()
        twin_opt.step()
    assert [p.data for p in model.parameters()] == [p.data for p in twin.parameters()]


def test_against_torch_float64() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the second oracle")
    model = TinyMLP([2, 6, 1], seed=4)
    params = model.parameters()
    X, y = moons_like(12, seed=8)
    step = mg_compile(svm_loss(model, params), (X, y), params=params)
    loss, grads = step(X, y)
    (w1, b1), (w2, b2) = [
        (
            torch.tensor([[p.data for p in w] for w, _ in layer], dtype=torch.float64, requires_grad=True),
            torch.tensor([b.data for _, b in layer], dtype=torch.float64, requires_grad=True),
        )
        for layer in model.layers
    ]
    xt, yt = torch.tensor(X), torch.tensor(y)
    s = (torch.relu(xt @ w1.T + b1) @ w2.T + b2)[:, 0]
    ref = torch.relu(1 - yt * s).mean() + 1e-4 * sum((t * t).sum() for t in (w1, b1, w2, b2))
    ref.backward()
    assert close(loss, ref.item(), rel=1e-12)
    by_neuron = []
    for w, b in ((w1, b1), (w2, b2)):
        for i in range(w.shape[0]):
            by_neuron += [*w.grad[i].tolist(), b.grad[i].item()]
    assert all(close(a, b, rel=1e-10) for a, b in zip(grads.tolist(), by_neuron))


# ---- random graphs of every op ---------------------------------------------------------------------

UNARY: dict[str, Callable[[Value], Value]] = {
    "neg": lambda a: -a,
    "abs": abs,
    "exp": Value.exp,
    "log": Value.log,
    "sqrt": Value.sqrt,
    "tanh": Value.tanh,
    "sigmoid": Value.sigmoid,
    "relu": Value.relu,
    "leaky_relu": lambda a: a.leaky_relu(0.2),
    "leaky_relu default": Value.leaky_relu,
    "elu": lambda a: a.elu(0.7),
    "softplus": Value.softplus,
    "softplus beta": lambda a: a.softplus(beta=2.0, threshold=1.5),
    "sin": Value.sin,
    "cos": Value.cos,
    "square": lambda a: a**2,
    "cube": lambda a: a**3,
    "pow 0.5": lambda a: a**0.5,
    "pow 1.5": lambda a: a**1.5,
    "pow -1": lambda a: a**-1,
    "pow 0": lambda a: a**0,
    "add const": lambda a: a + 1.5,
    "const minus": lambda a: 2.0 - a,
    "const times": lambda a: 0.5 * a,
    "const over": lambda a: 1.0 / a,
    "const pow": lambda a: 2.0**a,
}
BINARY: dict[str, Callable[[Value, Value], Value]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
}

finite = st.floats(-2.0, 2.0, allow_nan=False)


@st.composite
def programs(draw: st.DrawFn) -> tuple[int, int, list[tuple[str, tuple[int, ...]]], list[int]]:
    """Leaves (parameters, inputs), then ops whose operands are any earlier nodes (so nodes
    are shared), then the loss: a sum over some of the nodes."""
    n_params = draw(st.integers(1, 4))
    n_inputs = draw(st.integers(0, 3))
    steps: list[tuple[str, tuple[int, ...]]] = []
    n = n_params + n_inputs
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["unary", "binary", "sum"]))
        if kind == "unary":
            steps.append((draw(st.sampled_from(sorted(UNARY))), (draw(st.integers(0, n - 1)),)))
        elif kind == "binary":
            ab = (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
            steps.append((draw(st.sampled_from(sorted(BINARY))), ab))
        else:  # micrograd.sum: one n-ary node
            steps.append(("sum", tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5)))))
        n += 1
    outs = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6))
    return n_params, n_inputs, steps, outs


def build(program: tuple[int, int, list[tuple[str, tuple[int, ...]]], list[int]], params: list[Value]) -> Any:
    _, _, steps, outs = program

    def fn(xs: list[Value]) -> Value:
        nodes: list[Value] = [*params, *xs]
        for name, args in steps:
            xs = [nodes[i] for i in args]
            if name == "sum":
                nodes.append(micrograd.sum(xs[1:], xs[0]))
            else:
                nodes.append(UNARY[name](*xs) if len(xs) == 1 else BINARY[name](*xs))
        picked = [nodes[i] for i in outs]
        return picked[0] if len(picked) == 1 else sum(picked[1:], picked[0])

    return fn


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    programs(),
    st.lists(finite, min_size=7, max_size=7),
    st.lists(finite, min_size=3, max_size=3),
    st.lists(finite, min_size=3, max_size=3),
)
def test_random_graphs_match_eager(
    program: Any, param_data: list[float], traced_x: list[float], new_x: list[float]
) -> None:
    n_params, n_inputs = program[0], program[1]
    params = [Value(d) for d in param_data[:n_params]]
    fn = build(program, params)
    step = mg_compile(fn, ([*traced_x[:n_inputs]],), params=params)
    for x in (traced_x[:n_inputs], new_x[:n_inputs]):
        loss, grads = step(x)
        e_loss, e_grads = eager(fn, (x,), params)
        assert same(loss, e_loss), (loss, e_loss)
        for g, e in zip(grads.tolist(), e_grads):
            assert same(g, e), (grads, e_grads)
    for p, d in zip(params, new_x):  # parameters are read at every call
        p.data = d
    loss, grads = step(new_x[:n_inputs])
    e_loss, e_grads = eager(fn, (new_x[:n_inputs],), params)
    assert same(loss, e_loss)
    assert all(same(g, e) for g, e in zip(grads.tolist(), e_grads))


SPECIAL = [-math.inf, -1e300, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 1e300, math.inf, math.nan]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_at_edge_values(name: str) -> None:
    p = Value(0.0)
    step = mg_compile(lambda x: UNARY[name](x * p), 1.0, params=[p])
    for v in SPECIAL:
        p.data = v
        loss, grads = step(1.0)
        e_loss, e_grads = eager(lambda x: UNARY[name](x * p), (1.0,), [p])
        assert same(loss, e_loss), (v, loss, e_loss)
        assert same(grads[0], e_grads[0]), (v, grads[0], e_grads[0])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_at_edge_values(name: str) -> None:
    a, b = Value(1.0), Value(1.0)
    step = mg_compile(lambda x: BINARY[name](a * x, b * x), 1.0, params=[a, b])
    for va in SPECIAL:
        for vb in SPECIAL:
            a.data, b.data = va, vb
            loss, grads = step(1.0)
            e_loss, e_grads = eager(lambda x: BINARY[name](a * x, b * x), (1.0,), [a, b])
            assert same(loss, e_loss), (va, vb, loss, e_loss)
            assert all(same(g, e) for g, e in zip(grads.tolist(), e_grads)), (va, vb, grads, e_grads)


# ---- fusion, ordering and the shape of a step -------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 1), (2, 5), (3, 1), (17, 1), (17, 40), (101, 1), (101, 3)])
def test_ordered_sum_adds_rows_first_to_last(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal(shape) * 10.0 ** rng.integers(-12, 12, shape)
    expected = m[0].copy()
    for row in m[1:]:
        expected = expected + row
    assert np.array_equal(ordered_sum(np, m), expected)
    zeros = np.full(shape, -0.0)  # -0.0 + -0.0 is -0.0 in a chain, and so in the eager engine's sums
    assert all(math.copysign(1.0, z) < 0 for z in ordered_sum(np, zeros))


def test_long_sums_with_cancellation_are_added_in_eager_order() -> None:
    ps = [Value(v) for v in (1e16, 1.0, -1e16, 1.0, 3.0)]
    step = mg_compile(lambda x: sum((p * x for p in ps), 0.0) - ps[3] * x, 1.0, params=ps)
    loss, grads = step(1.0)
    e_loss, e_grads = eager(lambda x: sum((p * x for p in ps), 0.0) - ps[3] * x, (1.0,), ps)
    assert (loss, grads.tolist()) == (e_loss, e_grads)  # 1e16 + 1.0 rounds: order matters


def test_shared_subexpressions_and_reused_operands() -> None:
    w = Value(0.3)

    def fn(x: Value) -> Value:
        h = (w * x).tanh()
        return h * h + h / (h + 2.0) - (h - w) * w

    step = mg_compile(fn, 1.5, params=[w])
    for x in (1.5, -0.7, 0.0):
        loss, grads = step(x)
        e_loss, e_grads = eager(fn, (x,), [w])
        assert same(loss, e_loss) and same(grads[0], e_grads[0])


def test_nested_inputs_parameters_not_used_and_leaf_losses() -> None:
    u, unused = Value(2.0), Value(5.0)
    step = mg_compile(lambda m, s: m[1][0] * u + s, ([[1.0, 2.0], [3.0, 4.0]], 0.5), params=[u, unused])
    loss, grads = step([[0.0, 0.0], [7.0, 0.0]], 1.0)
    assert (loss, grads.tolist()) == (15.0, [7.0, 0.0])
    assert mg_compile(lambda x: u, 1.0, params=[u, unused])(3.0)[1].tolist() == [1.0, 0.0]
    assert mg_compile(lambda x: x, 1.0, params=[u])(3.0)[0] == 3.0


def test_control_flow_is_fixed_at_trace_time() -> None:
    w = Value(1.0)

    def fn(x: Value) -> Value:
        return w * x if x.data > 0 else -w * x  # this branch is taken once, at tracing

    step = mg_compile(fn, 2.0, params=[w])
    assert step(-3.0)[0] == -3.0  # eager would give 3.0: the traced graph has no branch


def test_comparisons_and_float_of_values_warn_while_tracing() -> None:
    w = Value(1.0)

    def branchy(x: Value) -> Value:
        return w * x if x > 0 else -w * x  # a Value comparison: decided once, at tracing

    with pytest.warns(TracerWarning, match=r"comparing Values \(>\) while micrograd.compile traces"):
        step = mg_compile(branchy, 2.0, params=[w])
    assert step(-3.0)[0] == -3.0
    with pytest.warns(TracerWarning, match=r"float\(\) of a Value"):
        mg_compile(lambda x: x * float(w), 2.0)
    with pytest.warns(TracerWarning, match=r"Value.item\(\)"):
        mg_compile(lambda x: x * w.item(), 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # outside a trace, comparisons stay silent
        assert Value(1.0) > 0 and float(w) == 1.0
        mg_compile(lambda x: (w * x).relu() + x.abs(), 2.0, params=[w])  # no data read: no warning


def test_a_real_training_loss_traces_without_warnings() -> None:
    from nn import MLP, losses

    model = MLP(2, [4, 1], seed=0)
    labels = [0, 1, 1]

    def loss(points: list[list[Value]]) -> Value:
        scores = [model(p) for p in points]
        return losses.hinge(scores, labels) + losses.cross_entropy([[s, -s] for s in scores], labels)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg_compile(loss, ([[0.1, 0.2], [0.3, -0.4], [1.0, 0.5]],), params=model.parameters())


def test_constants_are_frozen_and_parameters_read_each_call() -> None:
    w, frozen = Value(2.0), Value(10.0)
    step = mg_compile(lambda x: w * x + frozen, 1.0, params=[w])
    w.data, frozen.data = 3.0, 100.0
    assert step(1.0)[0] == 13.0


def test_repr_reports_the_program() -> None:
    w = Value(1.0)
    step = mg_compile(lambda xs: sum(xs, w), ([1.0, 2.0, 3.0],), params=[w])
    assert repr(step).startswith("CompiledStep(nodes=")
    assert step.num_groups == 1  # the chain of + became one ordered sum


# ---- errors ------------------------------------------------------------------------------------


def test_call_with_wrong_input_count_or_shape_is_a_clear_error() -> None:
    w = Value(1.0)
    step = mg_compile(lambda xs, y: sum((w * a * b for a, b in xs), y), (np.ones((3, 2)), 0.0), params=[w])
    with pytest.raises(ValueError, match="traced with 2 inputs, got 1"):
        step(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"input 0 has shape \(4, 2\).*traced with shape \(3, 2\)"):
        step(np.ones((4, 2)), 0.0)
    with pytest.raises(TypeError, match="input 1 must be a number"):
        step(np.ones((3, 2)), "zero")


def test_a_parameter_whose_data_is_not_a_number_is_named() -> None:
    """The parameters' .data are read at every call; one that is not a number is named, and any
    number type float() takes (an int, a bool, a numpy float) is read as that float."""
    w, b = Value(0.5), Value(0.0)
    step = mg_compile(lambda x: w * x + b, 2.0, params=[w, b])
    b.data = "0.1"  # type: ignore[assignment]
    with pytest.raises(TypeError, match=r"params\[1\]\.data is '0\.1', which is not a float"):
        step(2.0)
    b.data = 10**400
    with pytest.raises(TypeError, match=r"params\[1\]\.data is 1000.*, which is not a float"):
        step(2.0)
    w.data, b.data = np.float64(3.0), True
    loss, grads = step(2.0)
    assert (loss, grads.tolist()) == (7.0, [2.0, 1.0])


def test_unsupported_op_is_named() -> None:
    x = Value(1.0)

    def fn(a: Value) -> Value:
        out = Value((a * x).data, (a, x), "mystery")

        def _backward() -> None:
            a.grad += out.grad
            x.grad += out.grad

        out._backward = _backward
        return out + 1.0

    with pytest.raises(CompileError, match="op 'mystery' has a hand-written _backward closure"):
        mg_compile(fn, 1.0, params=[x])


def test_bad_arguments_to_compile() -> None:
    w = Value(1.0)
    with pytest.raises(TypeError, match="needs a function"):
        mg_compile(3, 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must return a Value"):
        mg_compile(lambda x: 1.0, 1.0)  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match="not a leaf"):
        mg_compile(lambda x: x * w, 1.0, params=[w * 2])
    with pytest.raises(ValueError, match="more than once"):
        mg_compile(lambda x: x * w, 1.0, params=[w, w])
    with pytest.raises(TypeError, match=r"params\[0\] must be a Value"):
        mg_compile(lambda x: x * w, 1.0, params=[1.0])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="example input 0 must be a number"):
        mg_compile(lambda x: x * w, ([[1.0], [1.0, 2.0]],))


def test_micrograd_imports_without_numpy() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import micrograd\n"
        "from micrograd.compiler import compile\n"
        "try:\n"
        "    compile(lambda x: x * 2, 1.0)\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "micrograd.compile needs numpy" in out.stdout


def test_nary_sums_fuse_with_chains() -> None:
    ps = [Value(v) for v in (1e16, 1.0, -1e16, 3.0)]

    def fn(x: Value) -> Value:
        inner = micrograd.sum([p * x for p in ps[1:]], ps[0])  # one n-ary node
        return micrograd.sum([ps[1], x], inner + ps[3] - x)  # + and - links, then another n-ary sum

    step = mg_compile(fn, 1.0, params=ps)
    assert step.num_groups == 2  # the products, then one ordered sum
    for x in (1.0, -2.5):
        loss, grads = step(x)
        assert (loss, grads.tolist()) == eager(fn, (x,), ps)


def test_a_loss_computed_under_no_grad_is_a_compile_error() -> None:
    w = Value(0.5)

    def fn(xs: Any) -> Value:
        with micrograd.no_grad():
            return xs[0] * w

    with pytest.raises(CompileError, match=r"computed its loss under no_grad\(\), so no graph was recorded"):
        mg_compile(fn, ([1.0],), params=[w])


def test_compile_inside_detect_anomaly_warns_that_the_replay_checks_nothing() -> None:
    w = Value(0.5)
    with micrograd.detect_anomaly(), pytest.warns(RuntimeWarning, match=r"checks no gradient for nan or inf"):
        step = mg_compile(lambda xs: xs[0] * w, ([1.0],), params=[w])
    assert step([2.0])[0] == 1.0
