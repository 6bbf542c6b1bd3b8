"""micrograd.func: every transform against torch.func (float64) on random functions of 1-6 inputs
built from every op and a user Function; second order against finite differences; composition;
argnums and has_aux; nested structures; forward mode through the lecture's closures; clear errors."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value, func
from micrograd.func.transforms import TracedValueReadWarning
from tests.dag_recipes import BINARY, UNARY, recipes
from tests.user_ops import Swish

# torch.func's first use scripts a helper with torch.jit.script, which PyTorch itself deprecates: not ours.
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _swish(x: Any) -> Any:
    if isinstance(x, Value):
        return Swish.apply(x)
    import torch

    return x * torch.sigmoid(x)


OPS: dict[str, tuple[Callable[..., Any], Callable[..., bool]]] = {
    **UNARY,
    "swish": (lambda x: _swish(x), lambda a: True),
}


def _data(x: Any) -> float:
    if isinstance(x, Value):  # the recipe's check of its own kinks: a read the transform need not trace
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracedValueReadWarning)
            return x.data
    return float(x.detach()) if hasattr(x, "detach") else float(x)


def evaluate(steps: Sequence[tuple[str, int, int]], inputs: Sequence[Any], m: int) -> tuple[list[Any], bool]:
    """A recipe of tests/dag_recipes.py (plus the user Function) with ``m`` outputs: the sum of
    every node, then the last m - 1 nodes.  Also says whether every point is safe (no kinks)."""
    nodes = list(inputs)
    safe = True
    for op, i, j in steps:
        if op in OPS:
            fn, ok = OPS[op]
            safe = safe and ok(_data(nodes[i]))
            nodes.append(fn(nodes[i]))
        else:
            fn, ok = BINARY[op]
            safe = safe and ok(_data(nodes[i]), _data(nodes[j]))
            # a**b at b == 0 exactly: PyTorch's double backward zeroes d2/(da db) (its mask on
            # d/da), the engine keeps the true value (micrograd/engine.py, Pow), so they differ there
            safe = safe and not (op == "pow" and _data(nodes[j]) == 0.0)
            nodes.append(fn(nodes[i], nodes[j]))
        safe = safe and math.isfinite(_data(nodes[-1])) and abs(_data(nodes[-1])) < 1e3
    total = nodes[0]
    for node in nodes[1:]:
        total = total + node
    return [total, *nodes[len(nodes) - m + 1 :]] if m > 1 else [total], safe


@st.composite
def problems(draw: st.DrawFn) -> tuple[list[float], list[Any], int, list[float], list[float]]:
    """(inputs, steps, m, a tangent, a cotangent): f: R^n -> R^m with n in 1..6, m in 1..3."""
    n = draw(st.integers(1, 6))
    xs, steps = draw(recipes(n_inputs=n, max_steps=7))
    for k, step in enumerate(steps):  # the user Function in about one step in eight
        if draw(st.integers(0, 7)) == 0:
            steps[k] = ("swish", step[1], step[2])
    m = draw(st.integers(1, min(3, len(steps) + 1)))
    tangent = draw(st.lists(st.floats(-1.0, 1.0), min_size=n, max_size=n))
    cotangent = draw(st.lists(st.floats(-1.0, 1.0), min_size=m, max_size=m))
    return xs, steps, m, tangent, cotangent


def _close(ours: Any, theirs: Any, rel: float = 1e-8) -> None:
    a, b = _floats(ours), _floats(theirs)
    assert len(a) == len(b)
    assert a == pytest.approx(b, rel=rel, abs=rel), (ours, theirs)


def _floats(tree: Any) -> list[float]:
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _floats(t)]
    return [float(tree)]


def _safe(xs: list[float], steps: list[tuple[str, int, int]], m: int) -> None:
    assume(evaluate(steps, [Value(x) for x in xs], m)[1])


# ---- against torch.func ---------------------------------------------------------------------


@FAST
@given(problems())
def test_first_order_transforms_match_torch_func(problem: Any) -> None:
    torch = pytest.importorskip("torch", reason="torch.func is the oracle (pip install torch==2.13.0)")
    xs, steps, m, tangent, cotangent = problem
    _safe(xs, steps, m)
    n = len(xs)
    everything = tuple(range(n))

    def ours(*args: Any) -> list[Any]:  # arguments not differentiated come as numbers
        return evaluate(steps, [a if isinstance(a, Value) else Value(a) for a in args], m)[0]

    def theirs(*args: Any) -> tuple[Any, ...]:
        return tuple(evaluate(steps, args, m)[0])

    t_xs = tuple(torch.tensor(x, dtype=torch.float64) for x in xs)
    t_tangent = tuple(torch.tensor(t, dtype=torch.float64) for t in tangent)
    t_cotangent = tuple(torch.tensor(c, dtype=torch.float64) for c in cotangent)

    expected_jacobian = torch.func.jacrev(theirs, argnums=everything)(*t_xs)
    for transform in (func.jacrev, func.jacfwd, func.jacobian):
        _close(transform(ours, argnums=everything)(*xs), expected_jacobian)

    value, tangent_out = func.jvp(ours, tuple(xs), tuple(tangent))
    t_value, t_tangent_out = torch.func.jvp(theirs, t_xs, t_tangent)
    _close(value, t_value)
    _close(tangent_out, t_tangent_out)

    value, pullback = func.vjp(ours, *xs)
    t_value, t_pullback = torch.func.vjp(theirs, *t_xs)
    _close(pullback(cotangent), t_pullback(t_cotangent))

    def scalar(*args: Any) -> Any:
        return ours(*args)[0]

    def t_scalar(*args: Any) -> Any:
        return theirs(*args)[0]

    (t_grad, t_value) = torch.func.grad_and_value(t_scalar, argnums=everything)(*t_xs)
    _close(func.grad(scalar, argnums=everything)(*xs), t_grad)
    _close(func.value_and_grad(scalar, argnums=everything)(*xs), (t_value, t_grad))
    _close(func.grad(scalar, argnums=-1)(*xs), t_grad[-1])


@FAST
@given(problems())
def test_second_order_transforms_match_torch_func(problem: Any) -> None:
    torch = pytest.importorskip("torch", reason="torch.func is the oracle (pip install torch==2.13.0)")
    xs, steps, _, tangent, _ = problem
    _safe(xs, steps, 1)
    everything = tuple(range(len(xs)))

    def ours(*args: Any) -> Any:
        return evaluate(steps, args, 1)[0][0]

    t_xs = tuple(torch.tensor(x, dtype=torch.float64) for x in xs)
    expected = torch.func.hessian(ours, argnums=everything)(*t_xs)
    _close(func.hessian(ours, argnums=everything)(*xs), expected)
    value, product = func.hvp(ours, tuple(xs), tuple(tangent))
    _close(value, ours(*t_xs))
    rows = [[float(h) for h in row] for row in expected]
    _close(product, [sum(h * t for h, t in zip(row, tangent)) for row in rows])


# ---- second order against finite differences, and the compositions agree ----------------------


@FAST
@given(recipes(n_inputs=3, max_steps=6))
def test_second_order_compositions_match_finite_differences(recipe: Any) -> None:
    xs, steps = recipe
    _safe(xs, steps, 1)

    def f(*args: Any) -> Any:
        return evaluate(steps, args, 1)[0][0]

    everything = (0, 1, 2)
    gradient = func.grad(f, argnums=everything)
    h = 1e-5
    by_differences = []
    for i in range(3):
        up = [x + h * (k == i) for k, x in enumerate(xs)]
        down = [x - h * (k == i) for k, x in enumerate(xs)]
        by_differences.append([(a - b) / (2 * h) for a, b in zip(gradient(*up), gradient(*down))])
    hessian = func.hessian(f, argnums=everything)(*xs)
    scale = max(1.0, *(abs(x) for row in by_differences for x in row))
    assert _floats(hessian) == pytest.approx(_floats(by_differences), abs=1e-4 * scale)
    for outer in (func.jacfwd, func.jacrev):
        for inner in (func.jacfwd, func.jacrev):
            _close(outer(inner(f, argnums=everything), argnums=everything)(*xs), hessian, rel=1e-7)


def test_third_order_and_perturbation_confusion() -> None:
    assert func.grad(func.grad(func.grad(lambda x: x**4)))(2.0) == 48.0
    assert func.jacfwd(func.jacfwd(func.jacfwd(lambda x: x**4)))(2.0) == 48.0
    assert func.jacrev(func.jacfwd(func.grad(lambda x: x**4)))(2.0) == 48.0
    # the inner variable is not the outer one, even at the same point (d/dx [d/dy x*y at y=x] = 1)
    assert func.grad(lambda x: func.grad(lambda y: x * y)(x))(2.0) == 1.0
    assert func.jacfwd(lambda x: func.jvp(lambda y: x * y, (x,), (1.0,))[1])(2.0) == 1.0
    # ... and a closure over the outer variable is differentiated through (d/dx [x * x] = 2x)
    assert func.grad(lambda x: x * func.grad(lambda y: x * y)(1.0))(2.0) == 4.0


def test_newton_step_with_grad_of_grad() -> None:
    def f(x: Any) -> Any:
        return (x - 1.5) ** 4 + x * x

    df, d2f = func.grad(f), func.grad(func.grad(f))
    x = 3.0
    for _ in range(30):
        x -= df(x) / d2f(x)
    assert abs(df(x)) < 1e-12


# ---- forward mode reuses each op's one definition ----------------------------------------------


def _lecture_tanh(v: Value) -> Value:
    with warnings.catch_warnings():  # (the lecture's op reads .data and brings its own rule)
        warnings.simplefilter("ignore", TracedValueReadWarning)
        t = math.tanh(v.data)
    out = Value(t, (v,), "tanh")

    def _backward() -> None:
        v.grad += (1 - t**2) * out.grad

    out._backward = _backward  # type: ignore[method-assign, assignment]
    return out


def test_forward_mode_runs_user_functions_and_lecture_closures() -> None:
    value, tangent = func.jvp(lambda x: Swish.apply(x) * 3, (0.5,), (2.0,))
    v = Value(0.5)
    assert value == pytest.approx(3 * 0.5 / (1 + math.exp(-0.5)))
    assert tangent == 2.0 * micrograd.grad(Swish.apply(v) * 3, [v])[0]
    value, tangent = func.jvp(lambda x: _lecture_tanh(x) * 2, (0.3,), (1.0,))
    assert tangent == 2 * (1 - math.tanh(0.3) ** 2)
    assert func.jacfwd(lambda x: [_lecture_tanh(x), x * 2])(0.3) == [1 - math.tanh(0.3) ** 2, 2.0]
    # a Function with a number parameter (leaky_relu's slope) and the engine's n-ary sum
    assert func.jvp(lambda x, y: micrograd.sum([x.leaky_relu(0.1), y, x]), (-2.0, 1.0), (1.0, 1.0)) == (
        pytest.approx(-1.2),
        pytest.approx(2.1),
    )


def test_forward_mode_costs_one_local_derivative_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = micrograd.engine.vjp

    def counting(node: Value, g: Any, create_graph: bool = False) -> Any:
        calls.append(node._op)
        return real(node, g, create_graph)

    monkeypatch.setattr(micrograd.engine, "vjp", counting)
    constant = Value(5.0).exp()  # built outside f: no tangent reaches it
    jac = func.jacfwd(lambda x, y: [x * y + constant, (x + y).sin(), y * 2], argnums=(0, 1))(1.0, 2.0)
    assert sorted(calls) == sorted(["*", "+", "+", "sin", "*"])  # each node once, all columns at once
    assert _floats(jac) == pytest.approx([2.0, 1.0, math.cos(3.0), math.cos(3.0), 0.0, 2.0])


# ---- argnums, has_aux, structures, numbers and Values ---------------------------------------------


def test_argnums_and_has_aux() -> None:
    def f(x: Any, y: Any, z: Any) -> Any:
        out = x * y * z
        return out, {"out": out, "note": "aux passes through"}

    g, aux = func.grad(f, argnums=(2, 0), has_aux=True)(1.0, 2.0, 3.0)
    assert g == (2.0, 6.0) and aux["note"] == "aux passes through"
    assert func.grad(f, argnums=-2, has_aux=True)(1.0, 2.0, 3.0)[0] == 3.0
    (value, aux), g = func.value_and_grad(f, argnums=1, has_aux=True)(1.0, 2.0, 3.0)
    assert (value, g) == (6.0, 3.0) and isinstance(aux["out"], Value)
    for transform in (func.jacrev, func.jacfwd, func.jacobian):
        jac, aux = transform(f, argnums=(0, 1), has_aux=True)(1.0, 2.0, 3.0)
        assert jac == (6.0, 3.0) and aux["note"] == "aux passes through"
    out, tangent, aux = func.jvp(lambda x: (x * x, [x, 7]), (3.0,), (1.0,), has_aux=True)
    assert (out, tangent, aux) == (9.0, 6.0, [3.0, 7])
    out, pullback, aux = func.vjp(lambda x: (x * x, "aux"), 3.0, has_aux=True)
    assert (out, pullback(1.0), aux) == (9.0, (6.0,), "aux")


def test_nested_structures() -> None:
    def f(xs: list[Any], pair: tuple[Any, Any]) -> Any:
        a, b = pair
        return [(xs[0] * a, xs[1] + b), xs[0] * xs[1] * b]

    args = ([1.0, 2.0], (3.0, 4.0))
    # f's output with each entry replaced by its derivatives arranged as the argument (a list)
    expected = [([3.0, 0.0], [0.0, 1.0]), [8.0, 4.0]]
    for transform in (func.jacrev, func.jacfwd, func.jacobian):
        assert transform(f)(*args) == expected
        assert transform(f, argnums=(0, 1))(*args)[1] == ([8.0, 4.0], (0.0, 2.0))
    out, tangent = func.jvp(f, args, ([1.0, 0.0], (0.0, 1.0)))
    assert out == [(3.0, 6.0), 8.0] and tangent == [(3.0, 1.0), 10.0]
    _, pullback = func.vjp(f, *args)
    assert pullback([(1.0, 0.0), 0.0]) == ([3.0, 0.0], (1.0, 0.0))
    assert func.grad(lambda p: p[0][0] * p[1])([[2.0], 5]) == [[5.0], 2.0]
    # argnums in any order: the results follow it, each arranged as its argument
    assert func.grad(lambda a, bs: a * bs[0] * bs[1], argnums=(1, 0))(2.0, [3.0, 4.0]) == ([8.0, 6.0], 12.0)
    assert func.jacfwd(lambda a, bs: [a * bs[0]], argnums=(1, 0))(2.0, [3.0, 4.0]) == [([2.0, 0.0], 3.0)]
    value, product = func.hvp(lambda xs: xs[0] ** 2 * xs[1], ([1.0, 2.0],), ([1.0, 0.0],))
    assert value == 2.0 and product == ([4.0, 2.0],)


def test_numbers_in_floats_out_values_in_values_out() -> None:
    assert type(func.grad(lambda x: x * x)(3)) is float
    assert func.grad(lambda x, y: x + 1.0)(3.0, 2.0) == 1.0
    assert func.grad(lambda x: 5.0)(3.0) == 0.0  # a constant
    assert func.jacfwd(lambda x: [x, 2.0])(3.0) == [1.0, 0.0]
    x = Value(3.0)
    g = func.grad(lambda v: v * v * v)(x)
    assert isinstance(g, Value) and g.data == 27.0
    g.backward()
    assert x.grad == 18.0  # the result is differentiable with respect to the Value passed in
    _, t = func.jvp(lambda v: v * v, (x,), (1.0,))
    assert isinstance(t, Value) and micrograd.grad(t, [x]) == (2.0,)
    with micrograd.no_grad():  # as torch.func: the transform does not stop at an outer no_grad
        assert func.grad(lambda v: v * v)(3.0) == 6.0


# ---- clear errors ------------------------------------------------------------------------------


def test_clear_errors() -> None:
    def square(x: Any) -> Any:
        return x * x

    with pytest.raises(TypeError, match="needs a function"):
        func.grad(3.0)(1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out of range"):
        func.grad(square, argnums=1)(1.0)
    with pytest.raises(ValueError, match="twice"):
        func.grad(lambda x, y: x * y, argnums=(0, -2))(1.0, 2.0)
    with pytest.raises(TypeError, match="argnums must be"):
        func.grad(square, argnums=True)(1.0)
    with pytest.raises(TypeError, match="argnums must be"):
        func.jacfwd(square, argnums=())(1.0)
    with pytest.raises(TypeError, match="one number or Value"):
        func.grad(lambda x: [x, x])(1.0)
    with pytest.raises(TypeError, match="has_aux=True"):
        func.grad(square, has_aux=True)(1.0)
    with pytest.raises(TypeError, match=r"argument 0\[1\] must be a number, a Value"):
        func.grad(lambda xs: xs[0])([1.0, "2"])
    with pytest.raises(TypeError, match="the function's output"):
        func.jacrev(lambda x: {"y": x})(1.0)
    with pytest.raises(TypeError, match="must be tuples"):
        func.jvp(square, 1.0, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1 primals but 2 tangents"):
        func.jvp(square, (1.0,), (1.0, 0.0))
    with pytest.raises(ValueError, match="arranged as primals"):
        func.jvp(lambda xs: xs[0], ([1.0, 2.0],), (1.0,))
    with pytest.raises(ValueError, match="arranged as the function's output"):
        func.vjp(lambda x: [x, x], 1.0)[1](1.0)
    with pytest.raises(TypeError, match="called without arguments"):
        func.grad(lambda: 1.0)()
    # forward mode nested inside another transform needs the local derivatives as Values
    with pytest.raises(RuntimeError, match=r"forward mode inside another transform.*'tanh'"):
        func.jacrev(func.jacfwd(_lecture_tanh))(0.3)
    with pytest.raises(RuntimeError, match="without a derivative rule"):
        func.jvp(lambda x: Value(1.0, (x,), "mystery"), (1.0,), (1.0,))


def test_explain_jvp_prints_the_tangents_flowing_forward() -> None:
    import io

    from micrograd.viz import explain_jvp

    text = io.StringIO()
    explain_jvp(lambda xs, w: [Swish.apply(xs[0]) * w, xs[1]], ([0.5, 1.0], 2.0), ([1.0, 0.0], 0.0), text)
    lines = text.getvalue().splitlines()
    assert lines[0] == "Forward mode through 5 Values, in topological order."
    assert "xs[0] = input  data 0.5000  tangent 1.0000 (the seed)" in lines
    assert "xs[1] = input  data 1.0000  tangent 0.0000 (the seed)  (output)" in lines
    swish = 0.5 / (1 + math.exp(-0.5))
    assert f"#1 = Swish(xs[0])  data {swish:.4f}" in lines
    _, expected = func.jvp(lambda x: Swish.apply(x) * 2.0, (0.5,), (1.0,))
    at = lines.index(f"#3 = #1 * w  data {2 * swish:.4f}  (output)")
    assert lines[at + 3] == f"    tangent {expected:.4f}"
    with pytest.raises(TypeError, match="explain_jvp works on numbers: pass numbers, not Values"):
        explain_jvp(lambda x: x, (Value(1.0),), (1.0,))
    steps, outputs = func.forward_steps(lambda x: [x * x, x], (3.0,), (2.0,))
    assert [(s.node.label or s.node.op, s.tangent) for s in steps] == [("x", 2.0), ("*", 12.0)]
    assert outputs == [steps[1].node, steps[0].node]


def test_numpy_arrays_in_give_arrays_out() -> None:
    numpy = pytest.importorskip("numpy", reason="numpy is not installed")

    def f(xs: Any) -> Any:  # f gets an array as a list of Values
        return [xs[0] * xs[1], (xs[0] + xs[1]).sin()]

    def scalar(xs: Any) -> Any:
        return xs[0] ** 2 * xs[1] + xs[1].exp()

    a = numpy.array([2.0, 3.0])
    jac = func.jacobian(f)(a)
    assert isinstance(jac, numpy.ndarray) and jac.shape == (2, 2)
    assert jac.tolist() == func.jacobian(f)([2.0, 3.0])
    for transform in (func.jacrev, func.jacfwd):
        assert transform(f)(a).tolist() == jac.tolist()
    g = func.grad(scalar)(a)
    assert isinstance(g, numpy.ndarray) and g.tolist() == func.grad(scalar)([2.0, 3.0])
    h = func.hessian(scalar)(a)
    assert isinstance(h, numpy.ndarray) and h.shape == (2, 2)
    value, tangent = func.jvp(scalar, (a,), (numpy.array([1.0, 0.0]),))
    assert (value, tangent) == func.jvp(scalar, ([2.0, 3.0],), ([1.0, 0.0],))
    with pytest.raises(TypeError, match=r"argument 0 must be a number, a Value, a numpy array of numbers"):
        func.grad(lambda xs: xs[0])(numpy.array(["a", "b"]))


def test_jacobian_picks_forward_mode_for_more_outputs_than_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    backward_passes: list[int] = []
    from micrograd.func import transforms

    real = transforms._reverse

    def counting(*args: Any, **kwargs: Any) -> Any:
        backward_passes.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(transforms, "_reverse", counting)
    wide = func.jacobian(lambda x: [x, x * x, x.exp()])(1.0)  # 1 input, 3 outputs: forward mode
    assert wide == [1.0, 2.0, math.e] and backward_passes == []
    tall = func.jacobian(lambda xs: xs[0] * xs[1] * xs[2])([1.0, 2.0, 3.0])  # 3 inputs, 1 output: reverse
    assert tall == [6.0, 3.0, 2.0] and backward_passes == [1]


# ---- every argument a Value; numbers read off traced Values are named --------------------------------


def test_arguments_not_differentiated_are_values_too() -> None:
    value, g = func.value_and_grad(lambda x, y: (x * y).exp())(1.0, 2.0)
    assert (value, g) == (math.exp(2.0), 2.0 * math.exp(2.0))
    assert func.grad(lambda x, ys: x * ys[0].exp() + ys[1], argnums=0)(3.0, [0.0, 5.0]) == 1.0
    assert func.grad(lambda x, n: x**n, argnums=0)(2.0, 3) == 12.0  # an int stays an int (a count)


def test_reading_a_traced_value_as_a_number_warns_at_the_line_that_did_it() -> None:
    with pytest.warns(
        func.TracedValueReadWarning, match=r"float\(\) of a Value .* no gradient flows"
    ) as record:
        assert func.grad(lambda x: float(x) * x)(3.0) == 3.0  # the float is a constant: 3, not 6
    assert record[0].filename == __file__
    with pytest.warns(func.TracedValueReadWarning, match=r"Value.item\(\)"):
        func.jvp(lambda x: x * x.item(), (2.0,), (1.0,))
    with pytest.warns(func.TracedValueReadWarning, match="micrograd.math.exp"):
        func.grad(lambda x: math.exp(x) * x)(1.0)


def test_comparisons_and_data_dependent_branches_do_not_warn() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert func.grad(lambda x: x * x if x > 0 else -x)(3.0) == 6.0
        assert func.grad(lambda x: micrograd.math.where(x < 0.0, -x, x))(-2.0) == -1.0
