"""Checking analytic gradients against central finite differences.

``gradcheck`` follows ``torch.autograd.gradcheck``: for every output o and
input x it compares the backpropagated d(o)/d(x) with the central difference
(o(x + eps) - o(x - eps)) / (2 eps), and they agree when
|analytic - numerical| <= atol + rtol * |numerical|.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import Value
from .reverse import as_tuple, grad

Outputs = Value | Sequence[Value]


class GradcheckError(RuntimeError):
    """Analytic and numerical gradients disagree (the message says where, and by how much)."""


def _describe(i: int, v: Value) -> str:
    return f"input {i}" + (f" ({v.label!r})" if v.label else "") + f" at {v.data!r}"


def _evaluate(f: Callable[..., Outputs], inputs: tuple[Value, ...]) -> tuple[Value, ...]:
    out = f(*inputs)
    try:
        return as_tuple(out, "the outputs of f")
    except TypeError:
        raise TypeError(
            f"gradcheck: f must return a Value or a sequence of Values, got {type(out).__name__}: {out!r}"
        ) from None


def gradcheck(
    f: Callable[..., Outputs],
    inputs: Value | Sequence[Value],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """True if the gradients of ``f(*inputs)`` match central finite differences.

    A mismatch raises ``GradcheckError`` naming the output, the input and both
    numbers, or returns False when ``raise_exception=False``.  The inputs' data
    is restored afterwards, whatever happens.

    >>> from micrograd import Value
    >>> gradcheck(lambda v: v.sin() * v, [Value(0.5)])
    True
    """
    xs = as_tuple(inputs, "inputs")
    outs = _evaluate(f, xs)
    for k, out in enumerate(outs):
        analytic = grad(out, xs, allow_unused=True)
        for i, x in enumerate(xs):
            a = 0.0 if analytic[i] is None else float(analytic[i])
            n = _central_difference(f, xs, k, x, eps)
            if not abs(a - n) <= atol + rtol * abs(n):  # written so that nan fails
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"gradient mismatch for output {k} with respect to {_describe(i, x)}: "
                    f"analytical {a!r}, numerical {n!r} "
                    f"(allowed difference atol + rtol*|numerical| = {atol + rtol * abs(n):.3g}, eps={eps})"
                )
    return True


def _central_difference(
    f: Callable[..., Outputs], xs: tuple[Value, ...], k: int, x: Value, eps: float
) -> float:
    # f runs with graph building on (not under no_grad): it may call grad() itself.
    original = x.data
    try:
        x.data = original + eps
        plus = _evaluate(f, xs)[k].data
        x.data = original - eps
        minus = _evaluate(f, xs)[k].data
    finally:
        x.data = original
    return (plus - minus) / (2 * eps)


def gradgradcheck(
    f: Callable[..., Outputs],
    inputs: Value | Sequence[Value],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    seed: int = 0,
) -> bool:
    """Check second derivatives: ``gradcheck`` on the gradients of ``f``, built
    with ``create_graph=True``.  Several outputs are weighted by seeded random
    numbers, as ``torch.autograd.gradgradcheck`` does, so that errors cannot cancel.

    >>> from micrograd import Value
    >>> gradgradcheck(lambda v: v.tanh() * v.exp(), [Value(0.3)])
    True
    """
    xs = as_tuple(inputs, "inputs")
    n_out = len(_evaluate(f, xs))
    rng = random.Random(seed)
    weights = [1.0] if n_out == 1 else [rng.uniform(0.5, 1.5) for _ in range(n_out)]

    def first_derivatives(*args: Value) -> tuple[Any, ...]:
        gs = grad(_evaluate(f, args), args, weights, create_graph=True, allow_unused=True)
        return tuple(Value(0.0) if g is None else g for g in gs)

    return gradcheck(first_derivatives, xs, eps, atol, rtol, raise_exception)
