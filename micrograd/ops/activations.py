"""Activation functions as ops, ``torch.nn.functional``'s: GELU, SiLU, Mish, Hardtanh, ReLU6,
Softsign, LogSigmoid, SELU and CELU, each a ``Function``, its forward beside its backward.

Each forward is the ``micrograd.math`` function of the same name, which computes the
activation as PyTorch's CPU kernel does; each backward is PyTorch's derivative formula,
so values and gradients are torch's in float64, nan and inf at the edges included.
Written with operators and ``micrograd.math``, the one definition runs on floats, on
Values (``create_graph``: second derivatives), on arrays (``compile``) and in forward
mode.  Each op is a ``Value`` method named after its ``torch.nn.functional`` function (a row of
``micrograd/ops/__init__.py``'s table).

>>> from micrograd import Value
>>> x = Value(1.0)
>>> y = x.gelu() + x.silu()
>>> y.backward()
>>> round(y.data, 6), round(x.grad, 6)
(1.572403, 2.010986)
"""

from __future__ import annotations

from typing import Any

from .._core.context import Context
from ..engine import Function, Value
from ..math import generic as mm
from ..math.generic import (
    GELU_TANH_BETA,
    GELU_TANH_KAPPA,
    SELU_ALPHA,
    SELU_SCALE,
    SQRT1_2,
    div,
    erf,
    exp,
    log1p,
    sigmoid,
    sign,
    tanh,
    where,
)

GELU_BETA = 1.1283791670955126 * SQRT1_2 * 0.5  # 2/sqrt(pi) / sqrt(2) / 2 = 1/sqrt(2 pi): the normal pdf's


class GELU(Function):
    name = "gelu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, approximate: str) -> Any:
        return mm.gelu(x, approximate)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, approximate = ctx.inputs
        if approximate == "tanh":  # (a parameter of the op, the same for every node: no where needed)
            inner_t = tanh(GELU_TANH_BETA * (x + GELU_TANH_KAPPA * (x * x * x)))
            left = 0.5 * x
            d_inner = GELU_TANH_BETA * (1.0 + 3.0 * GELU_TANH_KAPPA * (x * x))
            return g * (0.5 * (1.0 + inner_t) + left * (1.0 - inner_t * inner_t) * d_inner), None
        cdf = 0.5 * (1.0 + erf(x * SQRT1_2))  # Phi(x)
        pdf = GELU_BETA * exp(x * x * -0.5)  # phi(x)
        return g * (cdf + x * pdf), None  # (x Phi(x))' = Phi(x) + x phi(x)


def gelu(self: Value, approximate: str = "none") -> Value:
    """x * Phi(x) (``approximate='tanh'``: its tanh approximation), as ``torch.nn.functional.gelu``.

    >>> round(Value(1.0).gelu().data, 6)
    0.841345
    """
    return GELU.apply(self, mm.approximation_of(approximate))


class SiLU(Function):
    name = "silu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.silu(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        s = sigmoid(x)
        return (g * s * (1.0 + x * (1.0 - s)),)  # (x s)' = s + x s (1 - s)


class Mish(Function):
    name = "mish"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.mish(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        s = sigmoid(x)
        t = tanh(log1p(exp(x)))  # tanh(softplus(x)); softplus' = sigmoid
        return (g * (t + x * s * (1.0 - t * t)),)


class Hardtanh(Function):
    name = "hardtanh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, low: float, high: float) -> Any:
        return mm.hardtanh(x, low, high)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, low, high = ctx.inputs
        # 0 at the bounds and beyond (PyTorch's rule; clamp's gradient passes at the bounds); nan: g
        return where((x <= low) | (x >= high), 0.0, g), None, None


def hardtanh(self: Value, min_val: float = -1.0, max_val: float = 1.0) -> Value:
    """x limited to [min_val, max_val]; gradient 1 strictly inside, 0 at the bounds and beyond.

    >>> Value(3.0).hardtanh(), Value(0.5).hardtanh(0.0, 6.0)
    (Value(data=1.0, grad=0.0), Value(data=0.5, grad=0.0))
    """
    low, high = mm.hardtanh_bounds(min_val, max_val)
    return Hardtanh.apply(self, low, high)


class ReLU6(Function):
    name = "relu6"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.relu6(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (where((x <= 0.0) | (x >= 6.0), 0.0, g),)  # hardtanh(x, 0, 6)'s


class Softsign(Function):
    name = "softsign"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.softsign(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        b = abs(x) + 1.0
        # PyTorch composes x / (|x| + 1) from / and abs: through the numerator, and through |x|
        return (div(g, b) + -g * div(ctx.output, b) * sign(x),)


class LogSigmoid(Function):
    name = "logsigmoid"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.logsigmoid(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        negative = x < 0.0
        # 1 - sigmoid(x), as PyTorch writes it for either sign without overflow: z / (1 + z) is
        # sigmoid(-|x|) for z = e**-|x|; -|x| written as a branch, so that its derivative at 0 is
        # -1 (abs'(0) = 0 would make logsigmoid''(0) 0, where it is -1/4)
        z = exp(where(negative, x, -x))
        return (g * (where(negative, 1.0, 0.0) - where(negative, 1.0, -1.0) * div(z, 1.0 + z)),)


class SELU(Function):
    name = "selu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.selu(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        # below 0, scale alpha e**x, from x (from the result, out + scale alpha would cancel)
        return (where(x <= 0.0, g * (SELU_ALPHA * SELU_SCALE) * exp(x), g * SELU_SCALE),)


class CELU(Function):
    name = "celu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, alpha: float) -> Any:
        return mm.celu(x, alpha)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, alpha = ctx.inputs
        # below 0, e**(x/alpha), as PyTorch computes it, but with 1/alpha in float64 (see the docs'
        # op catalogue: PyTorch rounds alpha to float32 there)
        scale = 1.0 / alpha
        return where(x <= 0.0, g * scale * alpha * exp(x * scale), g), None


def celu(self: Value, alpha: float = 1.0) -> Value:
    """x for x > 0, else alpha * (e**(x/alpha) - 1), as ``torch.nn.functional.celu``.

    >>> round(Value(-1.0).celu(alpha=2.0).data, 6)
    -0.786939
    """
    return CELU.apply(self, mm.celu_alpha(alpha))
