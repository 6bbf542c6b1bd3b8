"""Optimizers with PyTorch's names, defaults and update formulas.

Each holds the parameter list and, per parameter, its state (momentum buffer,
Adam moments).  ``step()`` updates ``p.data`` from ``p.grad``; ``zero_grad()``
resets the gradients; ``lr`` may be changed between steps (schedules).  The
float operations follow PyTorch's single-tensor CPU implementations, so a step
agrees with ``torch.optim`` in float64 to rounding.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Iterable

from micrograd import Value

from .module import Module


def _hyper(x: object, name: str, low: float = 0.0, high: float = math.inf, high_open: bool = False) -> float:
    # numbers.Real: Python and NumPy ints and floats alike (np.float32(0.1) is a fine learning rate)
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}: {x!r}")
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"invalid {name}: {x!r} (must be a finite number)")
    if not (low <= v < high if high_open else low <= v <= high):
        interval = (
            f">= {low}" if high == math.inf else f"in [{low}, {high})" if high_open else f"in [{low}, {high}]"
        )
        raise ValueError(f"invalid {name}: {x!r} (must be {interval})")
    return v


_FIX = "pass model.parameters() (with the parentheses) or a list of Values"


def _parameter_list(params: object) -> list[Value]:
    """The parameters as a list, after checking the mistakes people make passing them."""
    if isinstance(params, Value):
        raise TypeError(f"params must be an iterable of Values, got one Value; {_FIX}, e.g. [v]")
    if isinstance(params, Module):
        raise TypeError(f"params must be an iterable of Values, got the module itself ({params!r}); {_FIX}")
    if callable(params) and not hasattr(params, "__iter__"):
        name = getattr(params, "__qualname__", getattr(params, "__name__", type(params).__name__))
        raise TypeError(
            f"params must be an iterable of Values, got the method {name} itself, not its result; "
            f"call it: {_FIX}"
        )
    if isinstance(params, (str, bytes)) or not hasattr(params, "__iter__"):
        raise TypeError(
            f"params must be an iterable of Values, got {type(params).__name__}: {params!r}; {_FIX}"
        )
    ps = list(params)
    if not ps:
        raise ValueError(
            "optimizer got an empty parameter list (a model without parameters, or an iterator "
            f"that was already used up?); {_FIX}"
        )
    seen: set[Value] = set()
    for i, p in enumerate(ps):
        if not isinstance(p, Value):
            got, hint = f"{type(p).__name__}: {reprlib.repr(p)}", _FIX
            if isinstance(p, dict):
                got, hint = "a dict", "parameter groups (dicts) are not supported: " + _FIX
            elif isinstance(p, (list, tuple)):
                got = f"a {type(p).__name__} of {len(p)} items"
                hint = "the list is nested: pass model.parameters() itself, or concatenate the lists with +"
            raise TypeError(f"params[{i}] must be a Value, got {got}; {hint}")
        if p._prev:
            raise ValueError(
                f"params[{i}] is the result of an op ({p._op or '?'}), not a leaf: {p!r}. Optimizers update "
                "leaves such as a model's weights; an op's result is recomputed by the next forward pass, so "
                f"changing it would have no effect; {_FIX} (or x.detach() for a new leaf)"
            )
        if p in seen:
            raise ValueError(
                f"params[{i}] appears more than once; it would be updated twice per step. "
                "Pass each parameter once (e.g. list(dict.fromkeys(params)) removes repeats)"
            )
        seen.add(p)
    return ps


class Optimizer:
    """Base class: the parameters, ``zero_grad()`` and a validated ``lr``."""

    params: list[Value]

    def __init__(self, params: Iterable[Value], lr: float) -> None:
        self.params = _parameter_list(params)
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
        pair = [] if isinstance(betas, (str, bytes)) or not hasattr(betas, "__iter__") else list(betas)
        if len(pair) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        self.betas = (
            _hyper(pair[0], "beta1", 0.0, 1.0, high_open=True),
            _hyper(pair[1], "beta2", 0.0, 1.0, high_open=True),
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
        w1, w2, shrink = 1 - beta1, 1 - beta2, 1 - lr * wd
        # (the loop reads locals only: it runs once per parameter, thousands of times per step)
        decoupled, amsgrad, sqrt = self.decoupled_weight_decay, self.amsgrad, math.sqrt
        m, v, vmax = self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq
        for i, p in enumerate(self.params):
            g = p.grad
            if wd != 0:
                if decoupled:
                    p.data = p.data * shrink
                else:
                    g = g + wd * p.data
            mi = m[i]
            # torch.lerp's two formulas, switching at weight 0.5
            m[i] = mi = mi + w1 * (g - mi) if w1 < 0.5 else g - (g - mi) * (1 - w1)
            v[i] = second = v[i] * beta2 + w2 * g * g
            if amsgrad:
                vmax[i] = second = max(vmax[i], second)
            denom = sqrt(second) / bias_correction2_sqrt + eps
            p.data = p.data + -step_size * mi / denom


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
