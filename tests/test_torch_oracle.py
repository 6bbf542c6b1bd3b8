"""PyTorch float64 as a second oracle: values, first and second derivatives of
random DAGs built from every op (skipped, with the reason, when torch is absent)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings

from micrograd import Value, grad
from tests.dag_recipes import build, recipes, run

torch = pytest.importorskip("torch", reason="the PyTorch oracle needs torch (pip install torch==2.13.0)")


def _nodes(out: Value) -> list[Value]:
    seen: dict[Value, None] = {}
    stack = [out]
    while stack:
        v = stack.pop()
        if v not in seen:
            seen[v] = None
            stack.extend(v._prev)
    return list(seen)


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


@settings(max_examples=200, deadline=None)
@given(recipes())
def test_values_and_gradients_match_pytorch_float64(recipe: tuple[list[float], list]) -> None:
    xs, steps = recipe
    inputs, out = build(recipe)
    out.backward()
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in xs]
    t_out, _ = run(steps, ts, lambda t: t.item())
    t_grads = torch.autograd.grad(t_out, ts, allow_unused=True, materialize_grads=True)
    assert close(out.data, t_out.item())
    for x, tg in zip(inputs, t_grads):
        assert close(x.grad, tg.item()), (x.grad, tg.item())


@settings(max_examples=80, deadline=None)
@given(recipes(n_inputs=2, max_steps=6))
def test_second_derivatives_match_pytorch_float64(recipe: tuple[list[float], list]) -> None:
    xs, steps = recipe
    inputs, out = build(recipe)
    # a**b at b == 0 exactly: PyTorch's double backward zeroes d2/(da db) (its mask on d/da),
    # the engine keeps the true value (micrograd/ops/basic.py, Pow; tested in test_func.py), so they differ
    assume(not any(v._op == "**" and v._prev[1].data == 0.0 for v in _nodes(out)))
    firsts = grad(out, inputs, create_graph=True, allow_unused=True)
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in xs]
    t_out, _ = run(steps, ts, lambda t: t.item())
    t_firsts = torch.autograd.grad(t_out, ts, create_graph=True, allow_unused=True, materialize_grads=True)
    for g, tg in zip(firsts, t_firsts):
        if g is None or not tg.requires_grad:
            continue
        seconds = grad(g, inputs, allow_unused=True)
        t_seconds = torch.autograd.grad(tg, ts, retain_graph=True, allow_unused=True, materialize_grads=True)
        for s, ts_ in zip(seconds, t_seconds):
            assert close(0.0 if s is None else s, ts_.item(), rel=1e-10)


@pytest.mark.parametrize("a", [1.0, 2.5, 0.3])
def test_pow_at_exponent_zero_keeps_the_true_mixed_second_derivative_where_pytorch_gives_0(a: float) -> None:
    """d2(a**b)/(da db) = a**(b-1) * (1 + b log a), 1/a at b = 0.  PyTorch's backward of pow masks
    d/da with where(b == 0, 0, ...), so its double backward gives 0 there; the engine keeps the
    formula's value (a deliberate difference: the finite differences agree with it)."""
    x, y = Value(a), Value(0.0)
    (ga, _) = grad(x**y, [x, y], create_graph=True)
    (_, gab) = grad(ga, [x, y])
    h = 1e-6
    fd = ((a ** (h - 1)) * h - (a ** (-h - 1)) * -h) / (2 * h)  # d/db of b * a**(b-1) at b = 0
    assert close(gab, 1 / a) and abs(gab - fd) < 1e-8
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (tga,) = torch.autograd.grad(ta**tb, [ta], create_graph=True)
    (tgab,) = torch.autograd.grad(tga, [tb], allow_unused=True, materialize_grads=True)
    assert tgab.item() == 0.0
