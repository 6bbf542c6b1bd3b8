"""Optimizers: steps against the written-out formulas and against torch.optim in float64."""

from __future__ import annotations

import math
from typing import Any

import pytest

from micrograd import Value
from nn import optim

START = [0.5, -1.5, 2.0, 1e-3]


def grad_of(p: list[float], t: int) -> list[float]:
    """A gradient that changes with the parameters and the step, so that state matters."""
    return [math.sin(3 * x + t) + 0.1 * x * x for x in p]


def run(make: Any, steps: int = 6, lrs: list[float] | None = None) -> list[float]:
    params = [Value(x) for x in START]
    opt = make(params)
    for t in range(steps):
        if lrs is not None:
            opt.lr = lrs[t]
        opt.zero_grad()
        for p, g in zip(params, grad_of([p.data for p in params], t)):
            p.grad += g
        opt.step()
    return [p.data for p in params]


def test_sgd_plain_and_momentum_follow_the_formulas() -> None:
    lr, mu, wd = 0.1, 0.9, 0.01
    p = list(START)
    buf: list[float] = []
    for t in range(6):
        g = [gi + wd * pi for gi, pi in zip(grad_of(p, t), p)]
        buf = g if t == 0 else [mu * b + gi for b, gi in zip(buf, g)]
        p = [pi - lr * (gi + mu * b) for pi, gi, b in zip(p, g, buf)]  # Nesterov
    got = run(lambda ps: optim.SGD(ps, lr=lr, momentum=mu, weight_decay=wd, nesterov=True))
    assert got == pytest.approx(p, rel=1e-12, abs=1e-12)
    p = list(START)
    for t in range(6):
        p = [pi - lr * gi for pi, gi in zip(p, grad_of(p, t))]
    assert run(lambda ps: optim.SGD(ps, lr=lr)) == pytest.approx(p, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_and_adamw_follow_the_formulas(decoupled: bool) -> None:
    lr, (b1, b2), eps, wd = 0.05, (0.8, 0.99), 1e-8, 0.1
    p = list(START)
    m = [0.0] * len(p)
    v = [0.0] * len(p)
    for t in range(1, 7):
        g = grad_of(p, t - 1)
        if decoupled:
            p = [pi * (1 - lr * wd) for pi in p]
        else:
            g = [gi + wd * pi for gi, pi in zip(g, p)]
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        m_hat = [mi / (1 - b1**t) for mi in m]
        v_hat = [vi / (1 - b2**t) for vi in v]
        p = [pi - lr * mh / (math.sqrt(vh) + eps) for pi, mh, vh in zip(p, m_hat, v_hat)]
    cls = optim.AdamW if decoupled else optim.Adam
    got = run(lambda ps: cls(ps, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd))
    assert got == pytest.approx(p, rel=1e-12, abs=1e-12)


CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "betas": (0.3, 0.9), "weight_decay": 0.1, "eps": 1e-6}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.3, "amsgrad": True}),
]


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS)
def test_steps_match_torch_optim(name: str, kwargs: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch", reason="torch.optim is the second oracle of the optimizers")
    lrs = [0.1, 0.1, 0.05, 0.05, 0.02, 0.01, 0.01, 0.005]  # a schedule: lr set between steps
    ours = run(lambda ps: getattr(optim, name)(ps, **kwargs), steps=8, lrs=lrs)
    tp = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    topt = getattr(torch.optim, name)([tp], **kwargs)
    for t in range(8):
        for group in topt.param_groups:
            group["lr"] = lrs[t]
        topt.zero_grad()
        tp.grad = torch.tensor(grad_of(tp.detach().tolist(), t), dtype=torch.float64)
        topt.step()
    assert ours == pytest.approx(tp.detach().tolist(), rel=1e-12, abs=1e-12)


def test_zero_grad_and_lr() -> None:
    ps = [Value(1.0), Value(2.0)]
    opt = optim.Adam(ps)
    assert opt.lr == 1e-3
    ps[0].grad = 3.0
    opt.zero_grad()
    assert [p.grad for p in ps] == [0.0, 0.0]
    opt.lr = 0.5
    assert opt.lr == 0.5
    with pytest.raises(ValueError, match="invalid learning rate"):
        opt.lr = -1.0


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: optim.SGD([], lr=0.1), ValueError, "empty parameter list"),
        (lambda: optim.SGD(Value(1.0), lr=0.1), TypeError, "one Value"),  # type: ignore[arg-type]
        (lambda: optim.SGD([Value(1.0), 2.0], lr=0.1), TypeError, r"params\[1\] must be a Value"),
        (lambda: optim.SGD([V, V], lr=0.1), ValueError, "more than once"),
        (lambda: optim.SGD([Value(1.0)], lr=0.1, nesterov=True), ValueError, "Nesterov"),
        (lambda: optim.SGD([Value(1.0)], lr=0.1, momentum=-0.5), ValueError, "invalid momentum"),
        (lambda: optim.Adam([Value(1.0)], betas=(0.9, 1.0)), ValueError, "invalid beta2"),
        (lambda: optim.Adam([Value(1.0)], betas=(0.9,)), ValueError, "pair"),  # type: ignore[arg-type]
        (lambda: optim.Adam([Value(1.0)], eps=-1e-8), ValueError, "invalid eps"),
        (lambda: optim.AdamW([Value(1.0)], lr="0.1"), TypeError, "learning rate must be a number"),
    ],
)
def test_bad_arguments_are_clear_errors(make: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        make()


V = Value(1.0)
