"""The functional API: grad(), backward(), topological_order(), gradcheck()."""

from __future__ import annotations

import math

import pytest

import micrograd
from micrograd import (
    Context,
    Function,
    GradcheckError,
    Value,
    grad,
    gradcheck,
    gradgradcheck,
    topological_order,
)


def test_grad_returns_floats_and_leaves_dot_grad_alone() -> None:
    x, y = Value(2.0), Value(3.0)
    z = x * y + x
    gx, gy = grad(z, [x, y])
    assert (gx, gy) == (4.0, 2.0)
    assert x.grad == 0.0 and y.grad == 0.0 and z.grad == 0.0


def test_grad_of_several_outputs_with_weights() -> None:
    x = Value(2.0)
    a, b = x * x, x * 3
    assert grad([a, b], [x]) == (7.0,)
    assert grad([a, b], x, grad_outputs=[2.0, -1.0]) == (5.0,)
    assert grad(a, x, grad_outputs=0.5) == (2.0,)
    with pytest.raises(ValueError, match="grad_outputs has 1 entries but there are 2 outputs"):
        grad([a, b], [x], grad_outputs=[1.0])


def test_grad_unused_input_is_an_error_unless_allowed() -> None:
    x, unused = Value(1.0), Value(5.0, label="u")
    y = x * 2
    with pytest.raises(ValueError, match=r"input 1 .*label='u'.* was not used"):
        grad(y, [x, unused])
    assert grad(y, [x, unused], allow_unused=True) == (2.0, None)


def test_grad_bad_arguments() -> None:
    x = Value(1.0)
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a Value, got float"):
        grad(x * 2, [1.0])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="inputs is empty"):
        grad(x * 2, [])
    with pytest.raises(TypeError, match="backward\\(\\) needs a Value"):
        micrograd.backward(3.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="gradient"):
        (x * 2).backward("1")  # type: ignore[arg-type]


def test_create_graph_gives_differentiable_values_and_third_derivatives() -> None:
    x = Value(0.5)
    y = x.sin() * x
    (g,) = grad(y, [x], create_graph=True)
    (gg,) = grad(g, [x], create_graph=True)
    (ggg,) = grad(gg, [x])
    s, c = math.sin(0.5), math.cos(0.5)
    assert g.data == pytest.approx(c * 0.5 + s, rel=1e-15)
    assert gg.data == pytest.approx(-s * 0.5 + 2 * c, rel=1e-15)
    assert ggg == pytest.approx(-c * 0.5 - 3 * s, rel=1e-14)


def test_create_graph_on_a_leaf_and_a_constant_gradient() -> None:
    x = Value(3.0)
    (g,) = grad(x, [x], create_graph=True)
    assert isinstance(g, Value) and g.data == 1.0
    (g2,) = grad(x.relu() * 0 + 2 * x, [x], create_graph=True)
    assert g2.data == 2.0
    assert grad(g2, [x], allow_unused=True) in ((None,), (0.0,))


def test_topological_order_is_deterministic_and_operand_ordered() -> None:
    a, b = Value(1.0, label="a"), Value(2.0, label="b")
    c = a * b
    d = c + a
    order = topological_order(d)
    assert order == [a, b, c, d]
    assert topological_order([d, c]) == order
    assert topological_order(a) == [a]


def test_gradcheck_passes_and_fails_with_a_clear_message() -> None:
    x = Value(0.3, label="x")
    assert gradcheck(lambda v: v.exp() * v.tanh(), [x])

    class WrongSquare(Function):  # a rule off by a factor of 2
        @staticmethod
        def forward(ctx: Context, v: float) -> float:
            ctx.save_for_backward(v)
            return v * v

        @staticmethod
        def backward(ctx: Context, g: float) -> float:
            (v,) = ctx.saved_tensors
            return 4 * v * g

    wrong_square = WrongSquare.apply

    with pytest.raises(GradcheckError, match=r"input 0 \('x'\) at 0.3: analytical 1.2, numerical 0.59999"):
        gradcheck(wrong_square, [x])
    assert gradcheck(wrong_square, [x], raise_exception=False) is False
    assert x.data == 0.3  # restored


def test_gradcheck_restores_inputs_when_f_raises() -> None:
    x = Value(1.0)
    calls = []

    def f(v: Value) -> Value:
        calls.append(v.data)
        if len(calls) > 1:
            raise RuntimeError("boom")
        return v * 2

    with pytest.raises(RuntimeError, match="boom"):
        gradcheck(f, [x])
    assert x.data == 1.0


def test_gradcheck_rejects_non_value_output() -> None:
    with pytest.raises(TypeError, match="f must return a Value"):
        gradcheck(lambda v: 3.0, [Value(1.0)])  # type: ignore[arg-type, return-value]


def test_gradcheck_nan_gradient_fails() -> None:
    x = Value(-1.0)
    assert gradcheck(lambda v: v.sqrt(), [x], raise_exception=False) is False


def test_gradgradcheck_multiple_outputs() -> None:
    x, y = Value(0.4), Value(-0.8)
    assert gradgradcheck(lambda a, b: [a * b.exp(), (a * b).tanh()], [x, y])
