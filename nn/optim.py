"""Optimizers with PyTorch's names, defaults and update formulas.

Each holds the parameter list and, per parameter, its state (momentum buffer,
Adam moments).  ``step()`` updates ``p.data`` from ``p.grad``; ``zero_grad()``
resets the gradients; ``lr`` may be changed between steps (schedules).  The
float operations follow PyTorch's single-tensor CPU implementations, so a step
agrees with ``torch.optim`` in float64 to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from micrograd import Value


def _hyper(x: object, name: str, low: float = 0.0, high: float = math.inf, high_open: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}: {x!r}")
    v = float(x)
    if not (low <= v < high if high_open else low <= v <= high):
        interval = f"[{low}, {high})" if high_open else f"[{low}, {high}]"
        raise ValueError(f"invalid {name}: {x!r} (must be in {interval})")
    return v


class Optimizer:
    """Base class: the parameters, ``zero_grad()`` and a validated ``lr``."""

    params: list[Value]

    def __init__(self, params: Iterable[Value], lr: float) -> None:
        if isinstance(params, Value):
            raise TypeError("params must be an iterable of Values (e.g. model.parameters()), got one Value")
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        seen: set[Value] = set()
        for i, p in enumerate(self.params):
            if not isinstance(p, Value):
                raise TypeError(f"params[{i}] must be a Value, got {type(p).__name__}: {p!r}")
            if p in seen:
                raise ValueError(f"params[{i}] appears more than once; it would be updated twice per step")
            seen.add(p)
        self.lr = lr
        self.steps = 0

    @property
    def lr(self) -> float:
        """The learning rate; set it between steps for a schedule."""
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        self._lr = _hyper(value, "learning rate")

    def zero_grad(self) -> None:
        """Set every parameter's ``.grad`` to 0.0."""
        for p in self.params:
            p.grad = 0.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.params)} parameters, lr={self.lr})"


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum and L2 weight decay.

    As ``torch.optim.SGD``: ``g = grad + weight_decay * p``; with momentum,
    ``buf = g`` on the first step, then ``buf = momentum * buf + (1 - dampening) * g``,
    and ``g = g + momentum * buf`` (Nesterov) or ``g = buf``; finally ``p -= lr * g``.

    >>> from micrograd import Value
    >>> p = Value(1.0); p.grad = 0.5
    >>> SGD([p], lr=0.1).step(); p.data
    0.95
    """

    def __init__(
        self,
        params: Iterable[Value],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        super().__init__(params, lr)
        self.momentum = _hyper(momentum, "momentum")
        self.dampening = _hyper(dampening, "dampening")
        self.weight_decay = _hyper(weight_decay, "weight_decay")
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum > 0 and zero dampening")
        self.nesterov = bool(nesterov)
        self.momentum_buffers: list[float | None] = [None] * len(self.params)

    def step(self) -> None:
        """One update of every parameter from its ``.grad``."""
        lr, mu, wd = self.lr, self.momentum, self.weight_decay
        bufs = self.momentum_buffers
        for i, p in enumerate(self.params):
            g = p.grad
            if wd != 0:
                g = g + wd * p.data
            if mu != 0:
                buf = bufs[i]
                buf = g if buf is None else buf * mu + (1 - self.dampening) * g
                bufs[i] = buf
                g = g + mu * buf if self.nesterov else buf
            p.data = p.data + -lr * g
        self.steps += 1


class Adam(Optimizer):
    """Adam (Kingma and Ba), with PyTorch's bias correction, eps placement and L2 ``weight_decay``.

    As ``torch.optim.Adam``: ``g = grad + weight_decay * p``;
    ``m = lerp(m, g, 1 - beta1)``; ``v = beta2 * v + (1 - beta2) * g * g``;
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``.
    ``amsgrad=True`` uses the running maximum of ``v``.

    >>> from micrograd import Value
    >>> p = Value(1.0); p.grad = 2.0
    >>> Adam([p], lr=0.1).step(); round(p.data, 6)   # the first step moves each weight by ~lr
    0.9
    """

    decoupled_weight_decay = False

    def __init__(
        self,
        params: Iterable[Value],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
    ) -> None:
        super().__init__(params, lr)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        self.betas = (
            _hyper(betas[0], "beta1", 0.0, 1.0, high_open=True),
            _hyper(betas[1], "beta2", 0.0, 1.0, high_open=True),
        )
        self.eps = _hyper(eps, "eps")
        self.weight_decay = _hyper(weight_decay, "weight_decay")
        self.amsgrad = bool(amsgrad)
        n = len(self.params)
        self.exp_avg = [0.0] * n
        self.exp_avg_sq = [0.0] * n
        self.max_exp_avg_sq = [0.0] * n

    def step(self) -> None:
        """One update of every parameter from its ``.grad``."""
        self.steps += 1
        t = self.steps
        lr, wd, eps = self.lr, self.weight_decay, self.eps
        beta1, beta2 = self.betas
        bias_correction1 = 1 - beta1**t
        bias_correction2_sqrt = math.sqrt(1 - beta2**t)
        step_size = lr / bias_correction1
        w1 = 1 - beta1
        m, v, vmax = self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq
        for i, p in enumerate(self.params):
            g = p.grad
            if wd != 0:
                if self.decoupled_weight_decay:
                    p.data = p.data * (1 - lr * wd)
                else:
                    g = g + wd * p.data
            # torch.lerp's two formulas, switching at weight 0.5
            m[i] = m[i] + w1 * (g - m[i]) if w1 < 0.5 else g - (g - m[i]) * (1 - w1)
            v[i] = v[i] * beta2 + (1 - beta2) * g * g
            second = v[i]
            if self.amsgrad:
                vmax[i] = second = max(vmax[i], second)
            denom = math.sqrt(second) / bias_correction2_sqrt + eps
            p.data = p.data + -step_size * m[i] / denom


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter), as ``torch.optim.AdamW``:
    each step first shrinks ``p`` by ``1 - lr * weight_decay``, then takes Adam's step
    on the plain gradient.

    >>> from micrograd import Value
    >>> p = Value(1.0); p.grad = 0.0
    >>> AdamW([p], lr=0.1, weight_decay=0.5).step(); p.data   # decay only: 1 * (1 - 0.05)
    0.95
    """

    decoupled_weight_decay = True

    def __init__(
        self,
        params: Iterable[Value],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)
