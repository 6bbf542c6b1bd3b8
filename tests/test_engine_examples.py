"""Worked examples from the seeds and micrograd, and the Value's everyday behaviour."""

from __future__ import annotations

import copy
import gc
import math
import threading

import pytest

import micrograd
from micrograd import Value, gradcheck, no_grad


def test_micrograd_readme_x_minus_4_example() -> None:
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    assert y.data == -20.0
    assert x.grad == 46.0


def test_micrograd_readme_expression() -> None:
    a = Value(-4.0)
    b = Value(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    assert f"{g.data:.4f}" == "24.7041"
    assert f"{a.grad:.4f}" == "138.8338"
    assert f"{b.grad:.4f}" == "645.5773"


def test_tinytorch_cubic_derivative_at_1_2() -> None:
    x = Value(1.2)
    f = x * x * x + x
    f.backward()
    assert math.isclose(x.grad, 5.32, rel_tol=1e-12)  # 3 * 1.2**2 + 1


def test_issue_example_runs_and_matches_closed_forms() -> None:
    x = Value(-4.0, label="x")
    y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
    y.backward()
    assert y.data == pytest.approx(-32 - math.log(17), rel=1e-15)
    assert x.grad == pytest.approx(3 * 16 / 2 - 2 * -4 / 17, rel=1e-15)
    z = x.tanh() * x.exp()
    (g,) = micrograd.grad(z, [x], create_graph=True)
    (gg,) = micrograd.grad(g, [x])
    t, e = math.tanh(-4.0), math.exp(-4.0)
    dt = 1 - t * t
    assert isinstance(g, Value)
    assert g.data == pytest.approx(dt * e + t * e, rel=1e-14)
    assert gg == pytest.approx(-2 * t * dt * e + 2 * dt * e + t * e, rel=1e-12)
    assert micrograd.gradcheck(lambda v: v.sin() * v, [x])


def test_repr_and_card_shape() -> None:
    a, b = Value(2.0), Value(3.0)
    c = a * b
    assert repr(a) == "Value(data=2.0, grad=0.0)"
    assert repr(Value(1.0, label="w")) == "Value(data=1.0, grad=0.0, label='w')"
    assert c._prev == (a, b) and c._op == "*"
    assert (a * a)._prev == (a, a)  # a tuple in operand order, never a set
    assert (2 - a)._prev[1] is a and (2 - a)._prev[0].data == 2.0
    assert a._fn is None and c._fn is micrograd.engine.Mul and c._backward is not None
    assert not hasattr(a, "__dict__")  # __slots__
    assert isinstance(Value(3).data, float) and isinstance(a.grad, float)


def test_numbers_on_either_side_and_sum() -> None:
    x = Value(2.0)
    assert (x + 1).data == 3.0 and (1 + x).data == 3.0
    assert (1 - x).data == -1.0 and (x - 1).data == 1.0
    assert (3 * x).data == 6.0 and (3 / x).data == 1.5 and (x / 4).data == 0.5
    assert (2**x).data == 4.0 and (x**3).data == 8.0 and (x ** Value(3.0)).data == 8.0
    assert (-x).data == -2.0 and (+x) is x and abs(Value(-2.5)).data == 2.5
    s = sum([x, x, Value(1.0)])
    assert isinstance(s, Value) and s.data == 5.0
    s.backward()
    assert x.grad == 2.0


def test_ordering_compares_data_but_equality_is_identity() -> None:
    a, b = Value(1.0), Value(1.0)
    assert a < 2 and a <= b and b >= a and not a > b and 0 < a  # noqa: SIM300 - the reflected comparison, on purpose
    assert a != b and a == a
    assert len({a, b}) == 2 and {a: 1}[a] == 1
    assert max(Value(1.0), Value(3.0)).data == 3.0


def test_reused_node_gets_the_summed_gradient() -> None:
    a = Value(3.0)
    b = a + a
    c = b + b
    c.backward()
    assert (a.grad, b.grad, c.grad) == (4.0, 2.0, 1.0)


def test_backward_accumulates_like_pytorch() -> None:
    x = Value(3.0)
    y = x * x + x
    y.backward()
    y.backward()
    assert x.grad == 2 * 7.0  # exactly twice, intermediate grads do not compound
    x.grad = 0.0
    y.backward(gradient=0.5)
    assert x.grad == 3.5


def test_micrograd_lecture_manual_backward_steps() -> None:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    d = c.tanh()
    d.grad = 1.0
    d._backward()
    c._backward()
    a._backward()  # a leaf: nothing to do
    assert c.grad == pytest.approx(1 - math.tanh(-6.0) ** 2)
    assert a.grad == pytest.approx(c.grad * -3.0) and b.grad == pytest.approx(c.grad * 2.0)


def test_million_node_chain_without_recursion() -> None:
    import sys

    limit = sys.getrecursionlimit()
    x = Value(1.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert x.grad == 1.0 and y.data == 1_000_001.0
    assert sys.getrecursionlimit() == limit


def test_graph_is_freed_by_reference_counting() -> None:
    gc.collect()
    gc.disable()
    try:
        x = Value(0.5)
        y = x
        for _ in range(1000):
            y = (y * 1.01).tanh() + x
        y.backward()
        micrograd.grad(y, [x], create_graph=True)
        del y
        assert gc.collect() == 0  # nothing was left for the cycle collector
    finally:
        gc.enable()


@pytest.mark.parametrize("bad", ["1.0", None, [1.0], 1j, {"a": 1}, b"1"])
def test_bad_data_is_a_clear_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        Value(bad)  # type: ignore[arg-type]


def test_bad_operands_and_children() -> None:
    x = Value(1.0)
    with pytest.raises(TypeError, match="str"):
        x + "a"  # type: ignore[operator]
    with pytest.raises(TypeError, match="Value"):
        Value(x)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="children"):
        Value(1.0, (1.0,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="label"):
        Value(1.0, label=3)  # type: ignore[arg-type]


def test_a_copied_value_has_its_own_label() -> None:
    a = Value(2.0, label="a")
    b = a * 3
    for original, name in ((a, "a"), (b, "")):
        for copied in (copy.copy(original), copy.deepcopy(original)):
            assert (copied.data, copied.label, copied._op) == (original.data, name, original._op)
            copied.label = "copy"
            assert original.label == name and copied.label == "copy"
    c = copy.copy(b)
    c.backward()  # the copy is a node of the same op on the same operands
    assert a.grad == 3.0


def test_numpy_scalars_ints_nan_inf_accepted() -> None:
    np = pytest.importorskip("numpy", reason="numpy scalars need numpy")
    for v in (np.float64(1.5), np.float32(1.5), np.int64(3), 3, True, math.nan, math.inf):
        assert type(Value(v).data) is float
    assert (Value(2.0) * np.float64(3.0)).data == 6.0


def test_no_grad_builds_no_graph_nests_and_restores() -> None:
    x = Value(2.0)
    assert micrograd.is_grad_enabled()
    with no_grad():
        y = x * x
        with no_grad():
            z = y + 1
        with micrograd.enable_grad():
            w = x * 3
        assert not micrograd.is_grad_enabled()
    assert micrograd.is_grad_enabled()
    assert y._prev == () and z._prev == () and y.data == 4.0
    assert w._prev != ()
    with pytest.raises(RuntimeError), no_grad():
        raise RuntimeError("boom")
    assert micrograd.is_grad_enabled()


def test_no_grad_as_decorator_and_per_thread() -> None:
    @no_grad()
    def square(v: Value) -> Value:
        return v * v

    assert square(Value(3.0))._prev == ()
    seen: list[bool] = []
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        entered.wait()
        seen.append(micrograd.is_grad_enabled())
        seen.append((Value(1.0) * 2)._prev != ())
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with no_grad():
        entered.set()
        release.wait(5)
    t.join()
    assert seen == [True, True]


def test_detach_item_float() -> None:
    x = Value(2.0)
    y = (x * 3).detach()
    assert y._prev == () and y.data == 6.0
    assert x.item() == 2.0 and float(x) == 2.0


def test_nary_sum_is_bit_identical_to_builtin_sum() -> None:
    import random

    rng = random.Random(7)
    xs = [Value(rng.uniform(-1e3, 1e3)) for _ in range(50)]
    ys = [Value(x.data) for x in xs]
    start = Value(0.1)
    s = micrograd.sum((x * x for x in xs), start)
    t = sum((y * y for y in ys), Value(0.1))
    assert s.data == t.data and len(s._prev) == 51 and s._op == "+"
    (s * s).backward()
    (t * t).backward()
    assert [x.grad for x in xs] == [y.grad for y in ys]
    assert micrograd.sum([]).data == 0.0 and micrograd.sum([1, Value(2.0)], start=3).data == 6.0
    assert gradcheck(lambda a, b: micrograd.sum([a, a * b, 2.0], b), [Value(0.3), Value(-1.2)])
    with pytest.raises(TypeError, match="str"):
        micrograd.sum(["a"])  # type: ignore[list-item]
