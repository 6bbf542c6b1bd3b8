"""PyTorch float64 as a second oracle: values, first and second derivatives of
random DAGs built from every op (skipped, with the reason, when torch is absent)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from micrograd import grad
from tests.dag_recipes import build, recipes, run

torch = pytest.importorskip("torch", reason="the PyTorch oracle needs torch (pip install torch==2.13.0)")


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
