"""Gradient hooks (Value.register_hook), anomaly detection (micrograd.detect_anomaly), and what
compile and no_grad say about them."""

from __future__ import annotations

import math
import threading
import warnings
from typing import Any

import pytest

import micrograd
from micrograd import AnomalyError, Context, Function, Value, detect_anomaly, grad, no_grad
from micrograd.compiler import FrozenParametersWarning

HERE = __file__


# ---- hooks ---------------------------------------------------------------------------------------


def test_a_hook_sees_the_complete_gradient_of_a_leaf_and_of_an_intermediate_node() -> None:
    x = Value(3.0)
    seen: list[tuple[str, float]] = []
    hx = x.register_hook(lambda g: seen.append(("x", g)))
    h = x * x  # x used twice: the hook sees the sum of both contributions, once
    hh = h.register_hook(lambda g: seen.append(("h", g)))
    (h * 2 + x).backward()
    assert seen == [("h", 2.0), ("x", 13.0)]  # backward order: h first, then x = 2 * 2x + 1
    assert x.grad == 13.0
    hx.remove()
    hh.remove()
    hh.remove()  # removing twice is harmless
    seen.clear()
    (x * x).backward()
    assert seen == []


def test_a_hook_may_replace_the_gradient_and_that_flows_on() -> None:
    x = Value(2.0)
    y = x * 3
    with y.register_hook(lambda g: g * 10):  # a handle is also a context manager
        (y * y).backward()  # dL/dy = 2y = 12, replaced by 120, so dL/dx = 360
    assert y.grad == 120.0 and x.grad == 360.0
    x.grad = 0.0
    (y * y).backward()
    assert x.grad == 36.0  # the hook is gone


def test_hooks_with_grad_create_graph_and_user_functions() -> None:
    class Cube(Function):
        @staticmethod
        def forward(ctx: Context, x: Any) -> Any:
            return x * x * x

        @staticmethod
        def backward(ctx: Context, g: Any) -> Any:
            (x,) = ctx.inputs
            return 3 * x * x * g

    x = Value(2.0)
    c = Cube.apply(x)
    got: list[Any] = []
    handle = c.register_hook(lambda g: got.append(g))
    (gx,) = grad(c * 5, [x])
    assert gx == 60.0 and got == [5.0]
    (gv,) = grad(c * 5, [x], create_graph=True)
    assert isinstance(got[-1], Value) and gv.data == 60.0  # the hook saw a Value under create_graph
    handle.remove()
    with x.register_hook(lambda g: 1.0):
        assert grad(Cube.apply(x), [x]) == (1.0,)


def test_a_bad_hook_result_is_a_clear_error_and_compile_refuses_hooks() -> None:
    x = Value(1.0)
    with (
        x.register_hook(lambda g: "big"),
        pytest.raises(TypeError, match="a hook's replacement gradient expects a real number"),
    ):
        (x * 2).backward()
    w = Value(0.5)
    with (
        w.register_hook(lambda g: None),
        pytest.raises(micrograd.CompileError, match=r"has hooks \(register_hook\).*remove them"),
    ):
        micrograd.compile(lambda v: w * v, 1.0, params=[w])
    micrograd.compile(lambda v: w * v, 1.0, params=[w])  # removed: fine


# ---- detect_anomaly ------------------------------------------------------------------------------


def test_the_issue_example_names_the_op_its_operands_and_the_line() -> None:
    x = Value(0.0)
    with detect_anomaly():
        y = (x.log() * 0).exp()  # forward: log(0) = -inf; -inf * 0 = nan
        line = y_line = _line_of("y = (x.log() * 0).exp()")
        with pytest.raises(AnomalyError) as info:
            y.backward()
    message = str(info.value)
    assert message.startswith(
        f"the forward pass made nan at op '*' ({HERE}:{y_line}) from operands (-inf, 0.0)"
    )
    assert "the backward pass made nan at op 'exp'" in message
    assert isinstance(info.value, RuntimeError) and line == y_line
    e = info.value
    assert (e.first_nan_op, e.first_nan_operands) == ("*", (-math.inf, 0.0))
    assert e.first_nan_where == e.where == f"{HERE}:{y_line}"
    assert e.op == "exp" and math.isnan(e.operands[0])


def _line_of(text: str) -> int:
    with open(HERE, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line_of" not in line)


def test_an_inf_gradient_is_found_and_the_place_is_in_user_code_not_the_engine() -> None:
    from nn import MLP

    model = MLP(1, [1], seed=0)
    with detect_anomaly():
        out = model([0.5])  # made inside nn: the place reported is this line
        y = (out - out).sqrt()  # sqrt at 0: its derivative is inf
        with pytest.raises(AnomalyError, match=r"the backward pass made inf at op 'sqrt'") as info:
            y.backward()
    assert f"{HERE}:{_line_of('y = (out - out).sqrt()')}" in str(info.value)
    assert "forward pass" not in str(info.value)  # no nan in the forward pass


def test_without_detect_anomaly_nothing_is_checked_and_it_is_per_thread_and_nestable() -> None:
    x = Value(0.0)
    y = (x.log() * 0).exp()
    y.backward()  # no error: nan is a result
    assert math.isnan(x.grad)
    assert not micrograd.is_anomaly_enabled()
    with detect_anomaly():
        with detect_anomaly():
            assert micrograd.is_anomaly_enabled()
        assert micrograd.is_anomaly_enabled()
        flags: list[bool] = []
        t = threading.Thread(target=lambda: flags.append(micrograd.is_anomaly_enabled()))
        t.start()
        t.join()
        assert flags == [False]
    assert not micrograd.is_anomaly_enabled()

    @detect_anomaly()
    def step(v: Value) -> None:
        (v.log() * 0).exp().backward()

    with pytest.raises(AnomalyError):
        step(Value(0.0))
    assert not micrograd.is_anomaly_enabled()


def test_anomaly_mode_and_hooks_give_the_same_numbers() -> None:
    def f(v: Value) -> Value:
        return (v * v).tanh() + v.exp() / (v + 3)

    x1, x2 = Value(0.7), Value(0.7)
    f(x1).backward()
    with detect_anomaly(), x2.register_hook(lambda g: None):
        f(x2).backward()
    assert x1.grad == x2.grad


# ---- no_grad and compile -----------------------------------------------------------------------


def test_backward_on_a_no_grad_result_says_so_but_a_leaf_keeps_micrograd_behaviour() -> None:
    x = Value(2.0)
    with no_grad():
        y = x * 3
    with pytest.raises(RuntimeError, match=r"computed under no_grad\(\)"):
        y.backward()
    leaf = Value(5.0)
    leaf.backward()  # micrograd 0.1.0: a leaf's own gradient is 1
    assert leaf.grad == 1.0
    z = y * x  # a no_grad result used later is a plain leaf of the new graph
    z.backward()
    assert x.grad == 6.0


def test_compile_without_params_warns_that_outside_values_are_frozen() -> None:
    w = Value(0.5)
    with pytest.warns(FrozenParametersWarning, match=r"reads 1 Value\(s\) made outside.*params=model"):
        micrograd.compile(lambda v: w * v + 2.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        micrograd.compile(lambda v: v * 2.0 + 1.0, 1.0)  # numbers only: nothing frozen
        micrograd.compile(lambda v: w * v, 1.0, params=[w])
