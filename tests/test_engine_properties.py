"""Property-based gradient checks: every op, and random DAGs built from all ops,
against central finite differences (first and second order)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd import Value, grad, gradcheck, gradgradcheck
from tests.dag_recipes import BINARY, UNARY, build, on_values, recipes

away_from_zero = st.floats(-3.0, 3.0).filter(lambda v: abs(v) > 0.05)
positive = st.floats(0.1, 5.0)


@pytest.mark.parametrize("op", sorted(UNARY))
@given(a=st.floats(-3.0, 3.0))
def test_unary_op_gradients_match_finite_differences(op: str, a: float) -> None:
    f, safe = UNARY[op]
    assume(safe(a))
    assert gradcheck(f, [Value(a)])
    assert gradgradcheck(f, [Value(a)], atol=1e-4)


@pytest.mark.parametrize("op", sorted(BINARY))
@given(a=st.floats(-3.0, 3.0), b=st.floats(-3.0, 3.0))
def test_binary_op_gradients_match_finite_differences(op: str, a: float, b: float) -> None:
    f, safe = BINARY[op]
    assume(safe(a, b))
    assert gradcheck(f, [Value(a), Value(b)])
    assert gradgradcheck(f, [Value(a), Value(b)], atol=1e-4)


@given(a=st.floats(-3.0, 3.0), b=st.floats(-3.0, 3.0))
def test_numbers_on_either_side_give_the_same_gradient(a: float, b: float) -> None:
    assume(abs(b) > 0.1 and abs(a) > 0.1)
    for f in (
        lambda x, y: x + y,
        lambda x, y: x - y,
        lambda x, y: x * y,
        lambda x, y: x / y,
    ):
        x, y = Value(a), Value(b)
        f(x, y).backward()
        x2 = Value(a)
        f(x2, b).backward()
        y2 = Value(b)
        f(a, y2).backward()
        assert (x2.grad, y2.grad) == (x.grad, y.grad)


@settings(max_examples=200, deadline=None)
@given(recipes())
def test_random_dags_match_finite_differences(recipe: tuple[list[float], list]) -> None:
    inputs, _ = build(recipe)
    assert gradcheck(on_values(recipe[1]), inputs)


@settings(max_examples=60, deadline=None)
@given(recipes(n_inputs=2, max_steps=5))
def test_random_dags_second_derivatives(recipe: tuple[list[float], list]) -> None:
    inputs, _ = build(recipe)
    assert gradgradcheck(on_values(recipe[1]), inputs, atol=1e-4)


@settings(max_examples=100, deadline=None)
@given(recipes())
def test_backward_and_grad_agree(recipe: tuple[list[float], list]) -> None:
    inputs, out = build(recipe, skip_unsafe=False)
    firsts = grad(out, inputs, allow_unused=True)
    graph_firsts = grad(out, inputs, create_graph=True, allow_unused=True)
    out.backward()
    for x, g, gv in zip(inputs, firsts, graph_firsts):
        expected = 0.0 if g is None else g
        assert x.grad == expected or (math.isnan(x.grad) and math.isnan(expected))
        if gv is not None:
            assert gv.data == expected or (math.isnan(gv.data) and math.isnan(expected))


def test_hessian_vector_product_and_gradient_penalty() -> None:
    x, y = Value(0.7), Value(-1.3)
    f = x * x * y + (x * y).sin()
    gx, gy = grad(f, [x, y], create_graph=True)
    # Hessian-vector product with v = (1, 2): d/d(x,y) of (gx*1 + gy*2)
    hx, hy = grad(gx * 1 + gy * 2, [x, y])
    s = math.sin(x.data * y.data)
    hxx = 2 * y.data - y.data**2 * s
    hxy = 2 * x.data + math.cos(x.data * y.data) - x.data * y.data * s
    hyy = -(x.data**2) * s
    assert hx == pytest.approx(hxx + 2 * hxy, rel=1e-12)
    assert hy == pytest.approx(hxy + 2 * hyy, rel=1e-12)
    penalty = gx * gx + gy * gy  # a gradient penalty is differentiable too
    assert gradcheck(
        lambda a, b: sum(g * g for g in grad(a * a * b + (a * b).sin(), [a, b], create_graph=True)), [x, y]
    )
    assert penalty.data > 0
