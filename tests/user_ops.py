"""User ops shared by the tests: written with ``micrograd.Function`` as a learner would."""

from __future__ import annotations

from typing import Any

from micrograd import Context, Function
from micrograd import math as mm


class Swish(Function):
    """x * sigmoid(x), the issue's example: PyTorch's shape, with an intermediate saved."""

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        s = mm.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx: Context, grad_output: Any) -> Any:
        x, s = ctx.saved_tensors
        return grad_output * (s + x * s * (1 - s))
