"""User ops, the PyTorch way (micrograd.Function) and the lecture's way (a _backward closure),
through every path: backward(), grad(create_graph=True), gradcheck/gradgradcheck, compile,
explain and draw_dot; and the clear errors where a path cannot run an op."""

from __future__ import annotations

import ast
import io
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import CompileError, Context, Function, Value, explain, grad, gradcheck, gradgradcheck, no_grad
from micrograd import math as mm
from tests.user_ops import Swish

np = pytest.importorskip("numpy")


# ---- user ops of every shape ------------------------------------------------------------------


class Hypot(Function):  # binary, reading ctx.inputs and ctx.output instead of saving
    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.sqrt(a * a + b * b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        a, b = ctx.inputs
        r = ctx.output
        return g * mm.div(a, r), g * mm.div(b, r)


class Mean3(Function):  # n-ary
    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        return (xs[0] + xs[1] + xs[2]) / 3.0

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return (g / 3.0,) * 3


class ScaledTanh(Function):  # with a parameter passed as a number, and an attribute on ctx
    @staticmethod
    def forward(ctx: Context, x: Any, scale: float) -> Any:
        ctx.scale = scale
        t = mm.tanh(x * scale)
        ctx.save_for_backward(t)
        return t

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (t,) = ctx.saved_tensors
        return g * ctx.scale * (1 - t * t), None


class Leaky(Function):  # branches on data the vectorisable way
    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.where(x > 0.0, x, 0.1 * x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (x,) = ctx.inputs
        return mm.where(x > 0.0, g, 0.1 * g)


class FirstOnly(Function):  # returns None for an input: it gets no gradient
    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return a * mm.exp(b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        _, b = ctx.saved_tensors
        return g * mm.exp(b), None


# (Function, its inputs, the same op written with built-ins)
CASES: list[tuple[type[Function], tuple[float, ...], Any]] = [
    (Swish, (0.5,), lambda x: x * x.sigmoid()),
    (Hypot, (3.0, -4.0), lambda a, b: (a * a + b * b).sqrt()),
    (Mean3, (1.0, -2.0, 0.25), lambda a, b, c: (a + b + c) / 3.0),
    (Leaky, (-0.7,), lambda x: x.leaky_relu(0.1)),
]


@pytest.mark.parametrize(("fn", "xs", "composed"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_user_function_equals_the_op_written_with_built_ins(
    fn: type[Function], xs: tuple, composed: Any
) -> None:
    ours = [Value(x) for x in xs]
    ref = [Value(x) for x in xs]
    y, y_ref = fn.apply(*ours), composed(*ref)
    assert y.data == pytest.approx(y_ref.data, rel=1e-15)
    y.backward()
    y_ref.backward()
    for a, b in zip(ours, ref):
        assert a.grad == pytest.approx(b.grad, rel=1e-14)
    assert gradcheck(fn.apply, [Value(x) for x in xs])
    assert gradgradcheck(fn.apply, [Value(x) for x in xs])
    # second derivatives through the user op equal those through the built-ins
    first = grad(fn.apply(*ours), ours, create_graph=True)
    first_ref = grad(composed(*ref), ref, create_graph=True)
    for g, g_ref in zip(first, first_ref):
        for h, h_ref in zip(grad(g, ours, allow_unused=True), grad(g_ref, ref, allow_unused=True)):
            assert (h or 0.0) == pytest.approx(h_ref or 0.0, rel=1e-12, abs=1e-15)


def test_the_issue_example_end_to_end() -> None:
    x = Value(0.5)
    y = Swish.apply(x) * 3
    y.backward()
    s = 1 / (1 + math.exp(-0.5))
    assert x.grad == pytest.approx(3 * (s + 0.5 * s * (1 - s)), rel=1e-15)
    assert micrograd.gradcheck(Swish.apply, [Value(0.5)])
    assert micrograd.gradgradcheck(Swish.apply, [Value(0.5)])
    (g,) = micrograd.grad(Swish.apply(x), [x], create_graph=True)
    assert isinstance(g, Value) and g.data == pytest.approx(s + 0.5 * s * (1 - s), rel=1e-15)
    step = micrograd.compile(lambda xs: micrograd.sum(Swish.apply(v) for v in xs), ([0.1, 0.2],), params=[])
    loss, grads = step([0.1, 0.2])
    assert loss == Swish.apply(Value(0.1)).data + Swish.apply(Value(0.2)).data
    assert grads.shape == (0,)
    text = io.StringIO()
    explain(y, file=text)
    assert "#1 = Swish(#0)" in text.getvalue()
    pytest.importorskip("graphviz", reason="draw_dot needs the graphviz package")
    assert re.search(r'n1_op \[label="?Swish"? ', micrograd.draw_dot(y).source)


def test_parameters_attributes_and_none_gradients() -> None:
    x = Value(0.3)
    y = ScaledTanh.apply(x, 2.0)
    assert y._prev == (x,)  # the number is a parameter, not an operand
    y.backward()
    assert x.grad == pytest.approx(2.0 * (1 - math.tanh(0.6) ** 2), rel=1e-15)
    assert gradcheck(lambda v: ScaledTanh.apply(v, 2.0), [Value(0.3)])
    assert gradgradcheck(lambda v: ScaledTanh.apply(v, 2.0), [Value(0.3)])
    a, b = Value(1.5), Value(-0.5)
    FirstOnly.apply(a, b).backward()
    assert a.grad == pytest.approx(math.exp(-0.5)) and b.grad == 0.0
    assert grad(FirstOnly.apply(a, b), [b])[0] == 0.0


def test_user_functions_compile_to_the_eager_numbers() -> None:
    w = Value(0.8, label="w")

    def loss(xs: list[Value]) -> Value:
        terms = [Swish.apply(w * x) + ScaledTanh.apply(x, 1.5) * Leaky.apply(x - w) for x in xs]
        return Hypot.apply(micrograd.sum(terms), Mean3.apply(w, xs[0], xs[1]))

    xs = [0.3, -1.2, 2.0, -0.1]
    step = micrograd.compile(loss, (xs,), params=[w])
    for data in (xs, [1.0, 0.5, -0.25, 3.0]):
        got, grads = step(data)
        vs = [Value(v) for v in data]
        eager = loss(vs)
        (g,) = grad(eager, [w])
        assert got == eager.data and grads.tolist() == [g]  # bit for bit


def test_a_user_function_that_cannot_run_on_arrays_is_a_clear_compile_error() -> None:
    class BranchyRelu(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return x if x > 0 else 0.0  # a Python `if` on data

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            return g

    class MathExp(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return math.exp(x)  # floats only

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            return g * ctx.output

    for fn in (BranchyRelu, MathExp):
        assert fn.apply(Value(0.5)).data > 0  # fine on floats
        with pytest.raises(CompileError, match=rf"{fn.__name__}\.forward .*micrograd\.math\.where"):
            micrograd.compile(lambda x, f=fn: f.apply(x), 0.5)  # one use: probed on two elements all the same


def test_create_graph_through_a_forward_that_leaves_the_graph_is_refused() -> None:
    class FloatSwish(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            s = 1 / (1 + math.exp(-x))  # math.exp turns a Value into a float
            ctx.save_for_backward(x, s)
            return x * s

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            x, s = ctx.saved_tensors
            return g * (s + x * s * (1 - s))

    x = Value(0.2)
    FloatSwish.apply(x).backward()  # the float path is fine
    assert x.grad == pytest.approx(Swish.backward(Swish_ctx(0.2), 1.0))
    with pytest.raises(TypeError, match=r"FloatSwish\.forward turned a Value into a Python float"):
        grad(FloatSwish.apply(x), [x], create_graph=True)


def Swish_ctx(x: float) -> Context:
    ctx = Context((True,), (x,))
    Swish.forward(ctx, x)
    return ctx


def test_bad_functions_are_clear_errors() -> None:
    class NoBackward(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return x

    class ReturnsAValue(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return Value(x)

    class ReturnsTwo(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return x, x

    class WrongCount(Function):
        @staticmethod
        def forward(ctx: Context, a: Any, b: Any) -> Any:
            return a + b

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            return g

    class Junk(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            return "one"

    with pytest.raises(NotImplementedError, match="must define backward"):
        NoBackward.apply(Value(1.0)).backward()
    with pytest.raises(TypeError, match=r"ReturnsAValue.forward returned a Value"):
        ReturnsAValue.apply(Value(1.0))
    with pytest.raises(TypeError, match=r"ReturnsTwo.forward returned tuple of 2; an op returns one number"):
        ReturnsTwo.apply(Value(1.0))
    with pytest.raises(TypeError, match=r"WrongCount.backward returned 1 gradient\(s\), but forward took 2"):
        WrongCount.apply(Value(1.0), Value(2.0)).backward()
    with pytest.raises(TypeError, match=r"Junk.backward's gradient for input 0 expects a real number"):
        Junk.apply(Value(1.0)).backward()
    with pytest.raises(
        TypeError, match=r"micrograd.math.sigmoid takes a number, a Value or a numpy array, got str"
    ):
        Swish.apply("x")
    assert Swish.name == "Swish" and micrograd.engine.Mul.name == "*"


def test_function_under_no_grad_and_with_numbers_only() -> None:
    with micrograd.no_grad():
        y = Swish.apply(Value(0.5))
    assert y._prev == () and y._fn is None
    z = Hypot.apply(3.0, 4.0)  # numbers only: a constant result
    assert z.data == 5.0 and z._prev == ()


# ---- the lecture's way -------------------------------------------------------------------------


def _lecture_tanh(self: Value) -> Value:
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward() -> None:
        self.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out


def _lecture_exp(self: Value) -> Value:
    out = Value(math.exp(self.data), (self,), "exp")

    def _backward() -> None:
        self.grad += out.data * out.grad

    out._backward = _backward
    return out


def test_lecture_closure_ops_join_backward() -> None:
    Value.my_tanh = _lecture_tanh  # type: ignore[attr-defined]
    Value.my_exp = _lecture_exp  # type: ignore[attr-defined]
    try:
        a = Value(0.3)
        (a.my_tanh() * 2).backward()  # type: ignore[attr-defined]
        assert a.grad == 2 * (1 - math.tanh(0.3) ** 2)
        # mixed with built-ins, reused, and called twice (gradients accumulate, as for any op)
        b = Value(-0.4)
        y = b.my_exp() * b.my_tanh() + b.my_tanh()  # type: ignore[attr-defined]
        y.backward()
        ref = Value(-0.4)
        (ref.exp() * ref.tanh() + ref.tanh()).backward()
        assert b.grad == pytest.approx(ref.grad, rel=1e-15)
        y.backward()
        assert b.grad == pytest.approx(2 * ref.grad, rel=1e-15)
        # explain and the lecture's own manual stepping see the closure
        text = io.StringIO()
        explain(a.my_tanh(), file=text)  # type: ignore[attr-defined]
        assert "tanh(" in text.getvalue() and "gradients stop" not in text.getvalue()
        c = Value(0.5)
        o = c.my_tanh()  # type: ignore[attr-defined]
        o.grad = 1.0
        o._backward()
        assert c.grad == 1 - math.tanh(0.5) ** 2
    finally:
        del Value.my_tanh, Value.my_exp  # type: ignore[attr-defined]


def test_a_closure_listing_a_child_twice_is_counted_once() -> None:
    a = Value(3.0)
    out = Value(a.data * a.data, (a, a), "square")

    def _backward() -> None:
        a.grad += 2 * a.data * out.grad

    out._backward = _backward
    (out * 1.0).backward()
    assert a.grad == 6.0


def test_closures_cannot_go_higher_order_or_compile_and_say_why() -> None:
    x = Value(0.3)
    with pytest.raises(RuntimeError, match=r"cannot differentiate op 'tanh' twice.*micrograd.Function"):
        grad(_lecture_tanh(x), [x], create_graph=True)
    with pytest.raises(CompileError, match=r"op 'tanh' has a hand-written _backward closure.*Function"):
        micrograd.compile(lambda v: _lecture_tanh(v), 0.3)


def test_a_hand_built_node_without_a_rule_is_an_error_not_a_silent_zero() -> None:
    a = Value(1.0)
    b = Value(2.0 * a.data, (a,), "double")
    with pytest.raises(RuntimeError, match=r"cannot backpropagate through op 'double'.*_backward.*Function"):
        (b * 3).backward()
    with pytest.raises(RuntimeError, match="op 'double'"):
        grad(b, [a])
    with pytest.raises(CompileError, match="op 'double' was built by hand"):
        micrograd.compile(lambda v: Value(v.data, (v,), "double") * 2, 1.0)
    with pytest.raises(TypeError, match="_backward must be a function"):
        b._backward = 3  # type: ignore[assignment]


# ---- one definition, every path ------------------------------------------------------------------

UNARY_OPS = {
    "neg": lambda x: -x,
    "abs": lambda x: abs(x),
    "exp": lambda x: x.exp(),
    "expm1": lambda x: x.expm1(),
    "log": lambda x: x.log(),
    "log1p": lambda x: x.log1p(),
    "sqrt": lambda x: x.sqrt(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "leaky_relu": lambda x: x.leaky_relu(0.05),
    "elu": lambda x: x.elu(0.5),
    "softplus": lambda x: x.softplus(2.0, 5.0),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "square": lambda x: x**2,
    "pow_half": lambda x: x**0.5,
    "reciprocal": lambda x: x**-1,
    "swish": lambda x: Swish.apply(x),
}
BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "hypot": lambda a, b: Hypot.apply(a, b),
}
finite = st.floats(-30.0, 30.0, allow_nan=False)
edges = st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e-310, -1e-310, 20.0, 1e300, math.inf, -math.inf, math.nan])
numbers = st.one_of(finite, edges)


def _same(a: float, b: float) -> bool:
    """Equal bit for bit: the same number, nan with nan, and the same sign of zero."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _every_path(f: Any, xs: tuple[float, ...]) -> None:
    """backward(), grad(), grad(create_graph=True) and compile give the same numbers, bit for bit."""
    vs = [Value(x) for x in xs]
    y = f(*vs)
    y.backward()
    floats = [0.0 if g is None else g for g in grad(f(*vs), vs, allow_unused=True)]
    graphs = [Value(0.0) if g is None else g for g in grad(f(*vs), vs, create_graph=True, allow_unused=True)]
    params = [Value(x) for x in xs]
    step = micrograd.compile(lambda: f(*params), (), params=params)
    loss, compiled = step()
    assert _same(loss, y.data)
    for v, g1, g2, g3 in zip(vs, floats, graphs, compiled.tolist()):
        assert _same(v.grad, g1) and _same(g1, g2.data) and _same(g1, g3), (xs, v.grad, g1, g2.data, g3)


@settings(max_examples=40, deadline=None)
@given(x=numbers)
@pytest.mark.parametrize("name", sorted(UNARY_OPS))
def test_every_unary_op_gives_the_same_numbers_on_every_path(name: str, x: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _every_path(UNARY_OPS[name], (x,))


@settings(max_examples=40, deadline=None)
@given(a=numbers, b=numbers)
@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_every_binary_op_gives_the_same_numbers_on_every_path(name: str, a: float, b: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _every_path(BINARY_OPS[name], (a, b))


MIXED = [*UNARY_OPS.values()]


@st.composite
def mixed_graphs(draw: st.DrawFn) -> tuple[list[float], list[tuple[int, int, int]]]:
    xs = draw(st.lists(st.floats(0.2, 2.0) | st.floats(-2.0, -0.2), min_size=2, max_size=3))  # off the kinks
    steps = []
    for k in range(draw(st.integers(1, 7))):
        n = len(xs) + k
        steps.append((draw(st.integers(0, 1)), draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))))
    return xs, steps


def _mixed(steps: list[tuple[int, int, int]], vs: list[Value]) -> Value:
    nodes = list(vs)
    for kind, i, j in steps:
        if kind == 0:  # user ops
            hyp = Hypot.apply(nodes[i], nodes[j] * nodes[j] + 1.0)  # away from its kink at (0, 0)
            nodes.append(hyp + Swish.apply(nodes[i]) * Leaky.apply(nodes[j]))
        else:  # built-ins, sharing the same nodes
            nodes.append((nodes[i] * nodes[j]).tanh() + ScaledTanh.apply(nodes[i] - nodes[j], 0.5))
    return micrograd.sum(nodes[len(vs) :])


@settings(max_examples=60, deadline=None)
@given(mixed_graphs())
def test_random_graphs_mixing_built_ins_and_user_functions(recipe: tuple[list[float], list]) -> None:
    xs, steps = recipe
    _every_path(lambda *vs: _mixed(steps, list(vs)), tuple(xs))
    assert gradcheck(lambda *vs: _mixed(steps, list(vs)), [Value(x) for x in xs], atol=1e-4)


def test_math_namespace_agrees_on_floats_values_and_arrays() -> None:
    xs = [-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 40.0, 1000.0, math.inf, math.nan]
    arr = np.array(xs)
    for name in ("exp", "expm1", "log", "log1p", "sqrt", "tanh", "sigmoid", "sin", "cos", "abs", "sign"):
        f = getattr(mm, name)
        on_arrays = f(arr).tolist()
        for x, a in zip(xs, on_arrays):
            on_float = f(x)
            on_value = f(Value(x))
            assert _same(on_float, a), (name, x)
            assert _same(on_float, on_value if isinstance(on_value, float) else on_value.data), (name, x)
    assert _same(mm.pow(-8.0, 1 / 3), math.nan) and mm.pow(2, 10) == 1024.0
    assert mm.pow(np.array([4.0, 0.0]), 0.5).tolist() == [2.0, 0.0]
    assert mm.div(1.0, -0.0) == -math.inf and mm.div(np.array([1.0]), 0.0).tolist() == [math.inf]
    assert mm.where(np.array([True, False]), 1.0, 2.0).tolist() == [1.0, 2.0]
    assert mm.where(np.bool_(True), "a", "b") == "a"
    assert mm.equal(Value(2.0), 2.0) and not mm.equal(Value(2.0), Value(3.0))
    assert mm.isfinite(Value(1.0)) and not mm.isfinite(math.inf)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["exp", "expm1", "log", "log1p", "tanh", "sin", "cos"]),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=12),
)
def test_on_an_array_a_math_function_is_the_float_one_on_each_element(name: str, xs: list[float]) -> None:
    """On an array, ``math``'s own function runs on each element, and where it refuses one (an
    overflow, a pole, an infinity) the float function runs instead: its numbers, bit for bit."""
    from micrograd.math import floats as fmath

    got = getattr(mm, name)(np.array(xs)).tolist()
    assert all(_same(g, getattr(fmath, name)(x)) for g, x in zip(got, xs)), (name, xs, got)


# ---- numerics fixed in this change ------------------------------------------------------------------


def test_pow_base_gradient_at_a_subnormal_base_and_zero_exponent_is_zero_on_every_path() -> None:
    a, b = Value(5e-324), Value(0.0)
    (ga, gb) = grad(a**b, [a, b], create_graph=True)
    assert _same(ga.data, 0.0) and not math.isnan(gb.data)
    (fa,) = grad(a**b, [a])
    assert _same(fa, 0.0)
    # the mixed second derivative keeps the formula where it is finite: d/db (b a**(b-1)) = 1/a
    x, y = Value(2.0), Value(0.0)
    (gx,) = grad(x**y, [x], create_graph=True)
    assert gx.data == 0.0 and grad(gx, [y])[0] == 0.5


def test_numpy_scalars_work_on_either_side() -> None:
    assert (Value(2.0) * np.True_).data == 2.0
    assert (np.True_ * Value(2.0)).data == 2.0
    assert (Value(2.0) + np.float32(0.5)).data == 2.5 and (np.int64(3) - Value(1.0)).data == 2.0
    with pytest.raises(TypeError, match=r"numpy array of shape \(2,\).*one Value per element"):
        Value(2.0) * np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"numpy array of shape \(2,\)"):
        np.array([1.0, 2.0]) * Value(2.0)  # no silent object array


def test_the_float_path_keeps_negative_zero_gradients_as_torch_does() -> None:
    x = Value(3.0)
    (x * -0.0).backward()
    assert math.copysign(1.0, x.grad) == -1.0
    assert math.copysign(1.0, grad(x * -0.0, [x])[0]) == -1.0
    assert math.copysign(1.0, grad(x * -0.0, [x], create_graph=True)[0].data) == -1.0
    y = Value(3.0)
    (y * -0.0 + y * 0.0).backward()  # -0.0 + 0.0 is 0.0
    assert math.copysign(1.0, y.grad) == 1.0
    torch = pytest.importorskip("torch")
    t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (t * -0.0).backward()
    assert math.copysign(1.0, t.grad.item()) == -1.0


def test_bool_of_a_value_reads_its_data_and_warns_while_tracing() -> None:
    assert not Value(0.0) and Value(-2.0)
    with pytest.warns(micrograd.TracerWarning, match=r"bool\(\) of a Value"):
        micrograd.compile(lambda x: x * 2 if x else x, 1.0)


# ---- the package's structure ---------------------------------------------------------------------


def _imports(package: Path) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (anywhere in the file)."""
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        name = path.stem
        targets: set[str] = set()
        tree = ast.parse(path.read_text())
        for block in ast.walk(tree):  # imports for the type checker only are no imports at run time
            if isinstance(block, ast.If) and ast.unparse(block.test) in (
                "TYPE_CHECKING",
                "typing.TYPE_CHECKING",
            ):
                block.body = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    targets.add(node.module.split(".")[0])
                else:
                    targets.update(alias.name for alias in node.names)
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith(package.name + ".")
            ):
                targets.add(node.module.split(".")[1])
        graph[name] = targets & {p.stem for p in package.glob("*.py")} - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def test_nn_io_and_nn_layers_import_one_way() -> None:
    import nn

    graph = _imports(Path(nn.__file__).parent)
    graph.pop("__init__", None)
    assert _cycle(graph) is None, _cycle(graph)
    assert "io" in graph["layers"] and "layers" not in graph["io"]


def test_dot_builds_the_graph_of_sum_of_products_bit_for_bit() -> None:
    ws = [Value(w) for w in (0.3, -1.7, 2.5, 1e16)]
    xs: list[Any] = [Value(1.5), 2.0, Value(-0.25), Value(3.0)]  # numbers become constants, as with *
    y = micrograd.dot(ws, xs, Value(0.1))
    ref = micrograd.sum([w * x for w, x in zip(ws, xs)], 0.1)
    assert y.data == ref.data and y._op == "+" and [p._op for p in y._prev[1:]] == ["*"] * 4
    assert [(p._prev[0], p._prev[1].data) for p in y._prev[1:]] == [(w, float(x)) for w, x in zip(ws, xs)]
    y.backward()
    grads = [w.grad for w in ws]
    for w in ws:
        w.grad = 0.0
    micrograd.sum([w * x for w, x in zip(ws, xs)], 0.1).backward()
    assert grads == [w.grad for w in ws]
    with no_grad():
        assert micrograd.dot(ws, xs)._prev == ()
    with micrograd.detect_anomaly():
        assert micrograd.dot(ws, xs).data == micrograd.sum(w * x for w, x in zip(ws, xs)).data
    assert micrograd.dot([], []).data == 0.0
