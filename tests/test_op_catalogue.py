"""The op catalogue (micrograd/ops_math.py, activations.py, reductions.py), op by op from one
table: (a) gradients against central differences (hypothesis); (b) values and gradients against
PyTorch float64 at ordinary points and at the edges (0, -0.0, +-inf, nan, the ends of each domain),
nan, inf and the sign of zero compared exactly; (c) second derivatives against torch's double
backward; (d) micrograd.compile bit for bit against the eager engine; (e) micrograd.math on a
float, a Value and a numpy array alike.  Then the operators and protocols (%, //, round(),
math.floor/ceil/trunc, int()), the functions of a list, and the errors."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value, grad, gradcheck
from micrograd import math as mm

np = pytest.importorskip("numpy")

inf, nan = math.inf, math.nan


@dataclass(frozen=True)
class Op:
    """One op of the table: ``method`` of Value (and of micrograd.math) with ``kwargs``; ``torch``
    the same op on tensors; ``lo``..``hi`` and ``ok`` where finite differences can check it (away
    from kinks and domain ends); ``smooth``: twice differentiable there, with a second derivative
    that is not constant (torch's double backward then exists)."""

    id: str
    method: str
    torch: Callable[[Any, Any], Any]
    lo: float = -3.0
    hi: float = 3.0
    ok: Callable[..., bool] = lambda *xs: True
    smooth: bool = True
    kwargs: dict[str, Any] = field(default_factory=dict)
    torch_grad: Callable[[Any, Any], Any] | None = None  # where torch's op has no gradient of its own

    def on_values(self, *xs: Any) -> Any:
        return getattr(xs[0], self.method)(*xs[1:], **self.kwargs)

    def on_math(self, *xs: Any) -> Any:
        return getattr(mm, self.method)(*xs, **self.kwargs)


def away(*points: float, by: float = 1e-3) -> Callable[[float], bool]:
    return lambda x: all(abs(x - p) > by for p in points)


def off_steps(step: float, offset: float = 0.0) -> Callable[[float], bool]:
    """Away from the jumps of a step function, at offset + k * step."""
    return lambda x: abs((x - offset) / step - round((x - offset) / step)) > 1e-3


def quotient_off_integers(a: float, b: float) -> bool:
    return abs(b) > 0.1 and abs(a / b - round(a / b)) > 1e-3


def F(name: str, **kwargs: Any) -> Callable[[Any, Any], Any]:
    return lambda torch, x: getattr(torch.nn.functional, name)(x, **kwargs)


def T(name: str, **kwargs: Any) -> Callable[..., Any]:
    return lambda torch, *xs: getattr(torch, name)(*xs, **kwargs)


UNARY = [
    Op("tan", "tan", T("tan"), -1.4, 1.4),
    Op("asin", "asin", T("asin"), -0.95, 0.95),
    Op("acos", "acos", T("acos"), -0.95, 0.95),
    Op("atan", "atan", T("atan")),
    Op("sinh", "sinh", T("sinh")),
    Op("cosh", "cosh", T("cosh")),
    Op("asinh", "asinh", T("asinh")),
    Op("acosh", "acosh", T("acosh"), 1.05, 5.0),
    Op("atanh", "atanh", T("atanh"), -0.95, 0.95),
    Op("log2", "log2", T("log2"), 0.05, 5.0),
    Op("log10", "log10", T("log10"), 0.05, 5.0),
    Op("exp2", "exp2", T("exp2")),
    Op("erf", "erf", T("erf")),
    Op("erfc", "erfc", T("erfc")),
    Op("square", "square", T("square")),
    Op("rsqrt", "rsqrt", T("rsqrt"), 0.05, 5.0),
    Op("reciprocal", "reciprocal", T("reciprocal"), ok=away(0.0, by=0.05)),
    Op("sign", "sign", T("sign"), ok=away(0.0), smooth=False),
    Op("floor", "floor", T("floor"), ok=off_steps(1.0), smooth=False),
    Op("ceil", "ceil", T("ceil"), ok=off_steps(1.0), smooth=False),
    Op("trunc", "trunc", T("trunc"), ok=off_steps(1.0), smooth=False),
    Op("round", "round", T("round"), ok=off_steps(1.0, 0.5), smooth=False),
    Op(
        "round_decimals_1",
        "round",
        T("round", decimals=1),
        ok=off_steps(0.1, 0.05),
        smooth=False,
        kwargs={"decimals": 1},
    ),
    Op(
        "round_decimals_-1",
        "round",
        T("round", decimals=-1),
        -30.0,
        30.0,
        off_steps(10.0, 5.0),
        False,
        {"decimals": -1},
    ),
    Op("frac", "frac", T("frac"), ok=off_steps(1.0), smooth=False),
    Op(
        "clamp",
        "clamp",
        T("clamp", min=-0.5, max=1.0),
        ok=away(-0.5, 1.0),
        smooth=False,
        kwargs={"min": -0.5, "max": 1.0},
    ),
    Op("clamp_min", "clamp", T("clamp", min=0.0), ok=away(0.0), smooth=False, kwargs={"min": 0.0}),
    Op("clamp_max", "clamp", T("clamp", max=0.5), ok=away(0.5), smooth=False, kwargs={"max": 0.5}),
    Op("gelu", "gelu", F("gelu"), -5.0, 5.0),
    Op("gelu_tanh", "gelu", F("gelu", approximate="tanh"), -5.0, 5.0, kwargs={"approximate": "tanh"}),
    Op("silu", "silu", F("silu"), -5.0, 5.0),
    Op("mish", "mish", F("mish"), -5.0, 5.0),
    Op("hardtanh", "hardtanh", F("hardtanh"), ok=away(-1.0, 1.0), smooth=False),
    Op(
        "hardtanh_-2_0.5",
        "hardtanh",
        F("hardtanh", min_val=-2.0, max_val=0.5),
        ok=away(-2.0, 0.5),
        smooth=False,
        kwargs={"min_val": -2.0, "max_val": 0.5},
    ),
    Op("relu6", "relu6", F("relu6"), -2.0, 8.0, away(0.0, 6.0), smooth=False),
    Op("softsign", "softsign", F("softsign"), ok=away(0.0)),
    Op("logsigmoid", "logsigmoid", F("logsigmoid"), -5.0, 5.0),
    Op("selu", "selu", F("selu"), ok=away(0.0)),
    Op("celu", "celu", F("celu"), ok=away(0.0)),
    Op("celu_alpha_2", "celu", F("celu", alpha=2.0), ok=away(0.0), kwargs={"alpha": 2.0}),
]

BINARY = [
    Op(
        "atan2", "atan2", T("atan2"), ok=lambda a, b: a * a + b * b > 0.01 and (abs(a) > 1e-3 or b > 0)
    ),  # its cut: y = 0, x < 0
    Op("maximum", "maximum", T("maximum"), ok=lambda a, b: abs(a - b) > 1e-3, smooth=False),
    Op("minimum", "minimum", T("minimum"), ok=lambda a, b: abs(a - b) > 1e-3, smooth=False),
    Op("hypot", "hypot", T("hypot"), ok=lambda a, b: a * a + b * b > 0.01),
    Op("logaddexp", "logaddexp", T("logaddexp")),
    Op("fmod", "fmod", T("fmod"), ok=quotient_off_integers, smooth=False),
    Op("remainder", "remainder", T("remainder"), ok=quotient_off_integers, smooth=False),
    Op(
        "floor_divide",
        "floor_divide",
        T("floor_divide"),
        ok=quotient_off_integers,
        smooth=False,
        # torch.floor_divide has no derivative (backward raises); div(rounding_mode="floor") gives 0
        torch_grad=lambda torch, a, b: torch.div(a, b, rounding_mode="floor"),
    ),
]

ORDINARY = [-2.7, -1.3, -0.6, -0.2, 0.3, 0.7, 1.2, 2.9]
EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    2.0,
    -2.0,
    6.0,
    1e-310,
    -1e-310,
    20.0,
    -20.0,
    710.0,
    -710.0,
]
EDGES += [1e300, -1e300, inf, -inf, nan, 1.0000000001, 0.9999999999, 0.25, 0.05, 0.15]
POINTS = ORDINARY + EDGES
PAIR_EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, 1e-310, inf, -inf, nan]
PAIRS = list(itertools.product(PAIR_EDGES, PAIR_EDGES)) + list(zip(ORDINARY, reversed(ORDINARY)))


def agree(ours: float, theirs: float, rel: float = 1e-12, slack: float = 1e-322) -> bool:
    """nan with nan; inf exactly, and two zeros of the same sign; other numbers to ``rel`` (or
    within ``slack``, a few units of the last place of a subnormal number by default)."""
    if math.isnan(ours) or math.isnan(theirs):
        return math.isnan(ours) and math.isnan(theirs)
    if math.isinf(theirs) or math.isinf(ours) or ours == theirs == 0.0:
        return ours == theirs and math.copysign(1.0, ours) == math.copysign(1.0, theirs)
    # (a subnormal result holds fewer digits: a few units of its last place, 5e-324 each)
    return abs(ours - theirs) <= max(rel * abs(theirs), slack)


def same(a: float, b: float) -> bool:
    """Bit for bit: the same number, nan with nan, zeros of the same sign."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def ours(op: Op, xs: tuple[float, ...]) -> tuple[float, list[float]]:
    vs = [Value(x) for x in xs]
    out = op.on_values(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


def theirs(torch: Any, op: Op, xs: tuple[float, ...]) -> tuple[float, list[float]]:
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    value = op.torch(torch, *ts).item()
    out = (op.torch_grad or op.torch)(torch, *ts)
    grads = torch.autograd.grad(out, ts, allow_unused=True, materialize_grads=True)
    return value, [g.item() for g in grads]


def in_domain(op: Op, n: int) -> list[tuple[float, ...]]:
    """Points inside ``op``'s checked domain, away from its kinks."""
    grid = [op.lo + (op.hi - op.lo) * (k + 0.5) / 7 for k in range(7)]
    if n == 1:
        return [(x,) for x in grid if op.ok(x)]
    return [(a, b) for a, b in zip(grid, reversed(grid)) if op.ok(a, b)] + [(0.7, -1.9), (-2.2, 0.45)]


# ---- (a) gradients against central differences ------------------------------------------------------


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.id)
@settings(max_examples=30, deadline=None)
@given(x=st.floats(0.0, 1.0))
def test_unary_gradient_matches_finite_differences(op: Op, x: float) -> None:
    x = op.lo + (op.hi - op.lo) * x
    assume(op.ok(x))
    assert gradcheck(op.on_values, [Value(x)])


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.id)
@settings(max_examples=30, deadline=None)
@given(a=st.floats(-3.0, 3.0), b=st.floats(-3.0, 3.0))
def test_binary_gradient_matches_finite_differences(op: Op, a: float, b: float) -> None:
    assume(op.ok(a, b))
    assert gradcheck(op.on_values, [Value(a), Value(b)])


# ---- (b) values and gradients against PyTorch float64 ------------------------------------------------


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.id)
def test_unary_values_and_gradients_match_pytorch(op: Op) -> None:
    torch = pytest.importorskip("torch")
    for x in POINTS:
        (value, (g,)), (t_value, (t_g,)) = ours(op, (x,)), theirs(torch, op, (x,))
        assert agree(value, t_value), (op.id, x, value, t_value)
        assert agree(g, t_g), (op.id, x, "gradient", g, t_g)


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.id)
def test_binary_values_and_gradients_match_pytorch(op: Op) -> None:
    torch = pytest.importorskip("torch")
    for a, b in PAIRS:
        (value, grads), (t_value, t_grads) = ours(op, (a, b)), theirs(torch, op, (a, b))
        assert agree(value, t_value), (op.id, a, b, value, t_value)
        for k, (g, t_g) in enumerate(zip(grads, t_grads)):
            assert agree(g, t_g), (op.id, a, b, f"gradient {k}", g, t_g)


# ---- (c) second derivatives against torch's double backward -----------------------------------------


@pytest.mark.parametrize("op", [op for op in UNARY + BINARY if op.smooth], ids=lambda op: op.id)
def test_second_derivatives_match_pytorch(op: Op) -> None:
    torch = pytest.importorskip("torch")
    n = 1 if op in UNARY else 2
    for xs in in_domain(op, n):
        vs = [Value(x) for x in xs]
        firsts = grad(op.on_values(*vs), vs, create_graph=True)
        ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
        t_firsts = torch.autograd.grad(op.torch(torch, *ts), ts, create_graph=True)
        for g, t_g in zip(firsts, t_firsts):
            # (b) holds the first derivatives to 1e-12; here, in the tails too, where a formula's
            # cancellation (gelu's 1 + tanh near -1) turns a last-bit difference of libm into more
            assert agree(g.data, t_g.item(), rel=1e-10), (op.id, xs, g.data, t_g.item())
            seconds = grad(g, vs, allow_unused=True)
            t_seconds = torch.autograd.grad(
                t_g, ts, allow_unused=True, materialize_grads=True, retain_graph=True
            )
            for s, t_s in zip(seconds, t_seconds):
                # (a second derivative that is 0 comes out as rounding noise: 1e-14 absolute)
                assert agree(0.0 if s is None else s, t_s.item(), 1e-10, 1e-14), (op.id, xs, s, t_s.item())


# ---- (d) compiled replay, bit for bit ----------------------------------------------------------------


@pytest.mark.parametrize("op", UNARY + BINARY, ids=lambda op: op.id)
def test_compiled_replay_gives_the_eager_numbers_bit_for_bit(op: Op) -> None:
    n = 1 if op in UNARY else 2
    ws = [Value(1.0), Value(1.0)][:n]  # x * 1.0 is x: the op meets each point exactly, -0.0 and nan included

    def loss(*xs: Value) -> Value:
        return op.on_values(*[x * w for x, w in zip(xs, ws)]) * 1.5

    step = micrograd.compile(loss, (0.3, -0.7)[:n], params=ws)
    points = [(x,) for x in POINTS] if n == 1 else PAIRS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for xs in points:
            value, grads = step(*xs)
            out = loss(*[Value(x) for x in xs])
            out.backward()
            assert same(value, out.data), (op.id, xs, value, out.data)
            eager = [w.grad for w in ws]
            for w in ws:
                w.grad = 0.0
            assert all(same(c, e) for c, e in zip(grads.tolist(), eager)), (op.id, xs, grads.tolist(), eager)


@pytest.mark.parametrize("op", UNARY + BINARY, ids=lambda op: op.id)
def test_batched_replay_sums_the_eager_samples(op: Op) -> None:
    n = 1 if op in UNARY else 2
    ws = [Value(1.0), Value(1.0)][:n]

    def loss(*xs: Value) -> Value:
        return op.on_values(*[x * w for x, w in zip(xs, ws)])

    step = micrograd.compile(loss, (0.3, -0.7)[:n], params=ws, batched=True, reduction="sum")
    samples = in_domain(op, n)
    value, grads = step(*[np.array(column) for column in zip(*samples)])
    total, totals = 0.0, [0.0] * n
    for xs in samples:
        out = loss(*[Value(x) for x in xs])
        out.backward()
        total += out.data
        totals = [t + w.grad for t, w in zip(totals, ws)]
        for w in ws:
            w.grad = 0.0
    assert same(value, total) and all(same(c, e) for c, e in zip(grads.tolist(), totals)), op.id


# ---- (e) micrograd.math on floats, Values and arrays ------------------------------------------------


@pytest.mark.parametrize("op", UNARY + BINARY, ids=lambda op: op.id)
def test_math_function_agrees_on_floats_values_and_arrays(op: Op) -> None:
    points = [(x,) for x in POINTS] if op in UNARY else PAIRS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        on_arrays = op.on_math(*[np.array(column) for column in zip(*points)])
    assert isinstance(on_arrays, np.ndarray) and on_arrays.dtype == np.float64
    for xs, a in zip(points, on_arrays.tolist()):
        on_float = op.on_math(*xs)
        assert type(on_float) is float, (op.id, xs, on_float)
        node = op.on_math(Value(xs[0]), *xs[1:])
        assert isinstance(node, Value) and node._fn is not None, op.id
        assert same(on_float, a) and same(on_float, node.data), (op.id, xs, on_float, a, node.data)
        assert same(on_float, op.on_values(*[Value(x) for x in xs]).data)
        if len(xs) == 2:  # a number first, a Value second: the op, the number a constant
            reflected = op.on_math(xs[0], Value(xs[1]))
            assert isinstance(reflected, Value) and same(reflected.data, on_float), (op.id, xs)


def test_the_ops_run_in_forward_mode_and_explain() -> None:
    import io

    for op in UNARY + BINARY:
        xs = in_domain(op, 1 if op in UNARY else 2)[0]
        vs = [Value(x) for x in xs]
        out = op.on_values(*vs)
        out.backward()
        for k in range(len(xs)):
            tangents = tuple(1.0 if j == k else 0.0 for j in range(len(xs)))
            _, tangent = micrograd.func.jvp(op.on_values, xs, tangents)
            assert same(tangent, vs[k].grad), (op.id, k, tangent, vs[k].grad)
        text = io.StringIO()
        micrograd.explain(out, file=text)
        assert out._op in text.getvalue()
