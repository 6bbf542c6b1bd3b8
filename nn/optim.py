"""Optimizers with PyTorch's names, defaults and update formulas.

Each holds the parameter list and, per parameter, its state (momentum buffer,
Adam moments).  ``step()`` updates ``p.data`` from ``p.grad``; ``zero_grad()``
resets the gradients; ``lr`` may be changed between steps (schedules).  The
float operations follow PyTorch's single-tensor CPU implementations, so a step
agrees with ``torch.optim`` in float64 to rounding.  With numpy installed, ``step()``
runs them on arrays of all the parameters at once, the same operations per element in
the same order (the scalar loop's numbers, bit for bit), on the arrays a compiled step
of the same parameters hands on (``micrograd.compiler.flat``).  Either way ``p.data`` reads the
new number after ``step()``: set at once, or, after an array step, when first looked at
(``micrograd.compiler.held``).
"""

from __future__ import annotations

import math
import numbers
import reprlib
import struct
import sys
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

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
        if p.children:
            raise ValueError(
                f"params[{i}] is the result of an op ({p.op or '?'}), not a leaf: {p!r}. Optimizers update "
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
        self._flat: Any = None  # the parameters as arrays (``_arrays``), made at the first numpy step
        self._flat_params: list[Value] = []  # the list ``_flat`` was made for (a copy)

    # Whether ``step`` may take the numpy path (``_array_step``): the same float operations, in the
    # same order, on arrays of every parameter at once; False runs the scalar loop only.
    fast = True

    def _arrays(self) -> Any:
        """The parameters' ``.data`` and ``.grad`` as arrays (``micrograd.compiler.flat``: shared
        with a compiled step of the same parameters, so that neither packs what the other wrote),
        or None without numpy."""
        if _numpy() is None:  # (flat imports numpy at first use: without it, the scalar loop, not an error)
            return None
        from micrograd.compiler.flat import shared

        flat = self._flat
        # (the list as it was, compared with ``==``: Values compare by identity, object's __eq__,
        # so one pass of C code that stops at the first object not the same; ``all(map(is_))``
        # took 0.08 ms a step on 4,192 parameters)
        if flat is None or self._flat_params != self.params:
            flat = self._flat = shared(self.params)  # (first step, or the list was changed since)
            self._flat_params = list(self.params)
        return flat

    def _step_on_arrays(self, update: Callable[[Any, Any], tuple[Any, Any] | None]) -> bool:
        """Run ``update(grad, data)`` (``(new data, state to keep)``, or None: nothing done) on the
        parameters' arrays and set their ``.data`` (False: nothing done, the scalar loop's turn).
        First on the arrays as last read or written (``FlatParams.known``: after a compiled step
        of the same parameters, its very arrays), checked as the ``.data`` are written; if one
        ``.grad`` or ``.data`` was set since, again on arrays read now.  Reading every ``.grad``
        and ``.data`` to check them before writing was two passes over the Values of three."""
        flat = self._arrays()
        if flat is None:
            return False
        known = flat.known()
        if known is not None:
            done = update(*known)
            if done is not None and flat.write_data_if_unchanged(done[0]):
                self._keep(done[1])
                return True
        g, data = flat.grad(), flat.data()
        if g is None or data is None:
            return False  # (a Value, None, a numpy scalar: the loop says what it makes of it)
        done = update(g, data)
        if done is None:
            return False
        self._keep(done[1])
        flat.write_data(done[0])  # (each .data set: read between steps, it is the current number)
        return True

    def _keep(self, state: Any) -> None:
        """Keep the state an ``update`` of ``_step_on_arrays`` made (moments, momentum buffers)."""
        raise NotImplementedError  # pragma: no cover - each optimizer with an array step has its own

    @property
    def lr(self) -> float:
        """The learning rate; set it between steps for a schedule."""
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        self._lr = _hyper(value, "learning rate")

    def zero_grad(self) -> None:
        """Set every parameter's ``.grad`` to 0.0."""
        flat = self._flat
        if flat is not None and self._flat_params == self.params and flat.zero_grads(0.0):
            return  # (held as arrays after a step: zeroed there, micrograd.compiler.held)
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
        # floats (None before the first step), or (after the numpy path, ``_array_step``) a float64 array
        self.momentum_buffers: Any = [None] * len(self.params)

    def step(self) -> None:
        """One update of every parameter from its ``.grad``."""
        if not (self.fast and self._array_step()):
            self._scalar_step()
        self.steps += 1

    def _scalar_step(self) -> None:
        """The update, parameter by parameter, on Python floats: the definition."""
        lr, mu, wd = self.lr, self.momentum, self.weight_decay
        if not isinstance(self.momentum_buffers, list):  # (after the numpy path: an array)
            self.momentum_buffers = list(self.momentum_buffers.tolist())
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

    def _array_step(self) -> bool:
        """``_scalar_step`` on float64 arrays of all the parameters, each element through the loop's
        float operations in its order, so the same numbers, bit for bit; False (nothing done)
        without numpy or where a ``.grad`` or ``.data`` is not a plain number."""
        np = _numpy()
        if np is None:
            return False
        lr, mu, wd = self.lr, self.momentum, self.weight_decay
        bufs: Any = self.momentum_buffers
        if isinstance(bufs, list) and mu != 0 and any(b is not None for b in bufs):
            found = _floats(np, bufs)  # (None for some, a number for others: the loop says what)
            if found is None:
                return False
            bufs = found

        def update(g: Any, data: Any) -> tuple[Any, Any]:
            buf = bufs
            with np.errstate(all="ignore"):  # inf and nan are numbers here, as in the loop
                if wd != 0:
                    g = g + wd * data
                if mu != 0:
                    buf = g if isinstance(bufs, list) else bufs * mu + (1 - self.dampening) * g
                    g = g + mu * buf if self.nesterov else buf
                return data + -lr * g, buf

        return self._step_on_arrays(update)

    def _keep(self, state: Any) -> None:
        if self.momentum != 0:
            self.momentum_buffers = state


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
        # lists of floats, or (after the numpy path, ``_array_step``) float64 arrays
        self.exp_avg: Any = [0.0] * n
        self.exp_avg_sq: Any = [0.0] * n
        self.max_exp_avg_sq: Any = [0.0] * n

    def step(self) -> None:
        """One update of every parameter from its ``.grad``."""
        self.steps += 1
        t = self.steps
        beta1, beta2 = self.betas
        k = AdamConstants(
            beta1,
            beta2,
            self.lr / (1 - beta1**t),
            math.sqrt(1 - beta2**t),
            1 - beta1,
            1 - beta2,
            1 - self.lr * self.weight_decay,
        )
        if not (self.fast and self._array_step(k)):
            self._scalar_step(k)

    def _scalar_step(self, k: AdamConstants) -> None:
        """The update, parameter by parameter, on Python floats: the definition."""
        wd, eps, beta2 = self.weight_decay, self.eps, k.beta2
        step_size, bias_correction2_sqrt, w1, w2, shrink = k.step_size, k.bc2_sqrt, k.w1, k.w2, k.shrink
        # (the loop reads locals only: it runs once per parameter, thousands of times per step)
        decoupled, amsgrad, sqrt = self.decoupled_weight_decay, self.amsgrad, math.sqrt
        self._as_lists()
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

    def _as_lists(self) -> None:
        """The moments as lists of floats (after ``_array_step`` kept them as arrays)."""
        if not isinstance(self.exp_avg, list):
            self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq = (
                list(a.tolist()) for a in (self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq)
            )

    def _array_step(self, k: AdamConstants) -> bool:
        """``_scalar_step`` on float64 arrays of all the parameters: each element goes through the
        very float operations of the loop, in its order (IEEE arithmetic and sqrt are the same in
        numpy and Python), so the numbers are the loop's, bit for bit (but which nan two nans give,
        the hardware's choice of operand); ``.data`` is written once.
        False (nothing done) without numpy or where a ``.grad`` or ``.data`` is not a plain
        number: the loop then runs as the definition.  The arrays are ``_arrays``': after a
        compiled step of the same parameters, its very arrays, packed again only where a
        ``.data`` or ``.grad`` was set since (reading and packing them was two thirds of this
        path's time on microgpt's 4,192 parameters)."""
        return self._step_on_arrays(lambda g, data: self._update(k, g, data))  # (no numpy: False)

    def _update(self, k: AdamConstants, g: Any, data: Any) -> tuple[Any, Any] | None:
        """The new ``.data`` and moments from the arrays ``g`` and ``data`` (None: a zero
        denominator, the loop's ZeroDivisionError)."""
        np = sys.modules["numpy"]  # (loaded: the arrays are numpy's)
        with np.errstate(all="ignore"):  # inf and nan are numbers here, as in the loop
            m, v, vmax = (
                np.asarray(a, dtype=np.float64) for a in (self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq)
            )
            if self.weight_decay != 0:
                if self.decoupled_weight_decay:
                    data = data * k.shrink
                else:
                    g = g + self.weight_decay * data
            # The loop's operations one by one, each into the array made for its line (out=): the
            # same floats (a * b is b * a, bit for bit), a third of the temporary arrays.
            w1 = k.w1
            t = np.subtract(g, m)
            if w1 < 0.5:  # m + w1 * (g - m)
                m = np.add(m, np.multiply(t, w1, out=t), out=t)
            else:  # g - (g - m) * (1 - w1)
                m = np.subtract(g, np.multiply(t, 1 - w1, out=t), out=t)
            gg = np.multiply(g, k.w2)  # v * beta2 + w2 * g * g
            v = second = np.add(np.multiply(v, k.beta2), np.multiply(gg, g, out=gg))
            if self.amsgrad:
                vmax = second = np.where(
                    second > vmax, second, vmax
                )  # max(vmax, second), nan as max keeps it
            denom = np.sqrt(second)  # sqrt(second) / bias_correction2_sqrt + eps
            np.add(np.divide(denom, k.bc2_sqrt, out=denom), self.eps, out=denom)
            step = np.multiply(m, -k.step_size)  # data + -step_size * m / denom
            data = np.add(data, np.divide(step, denom, out=step), out=step)
        if not denom.all():
            return None  # a zero denominator: the loop's ZeroDivisionError, nothing changed yet
        return data, (m, v, vmax)

    def _keep(self, state: Any) -> None:
        self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq = state


def _numpy() -> Any:
    """numpy, or None where it is not installed (the optimizers then step by their scalar loops)."""
    try:
        from micrograd.compiler.errors import load_numpy

        return load_numpy()
    except ImportError:  # pragma: no cover - numpy is a dependency of the compiled paths only
        return None


def _floats(np: Any, xs: list[Any]) -> Any:
    """The parameters' ``.grad`` or ``.data`` (``xs``, read by a list comprehension, twice as fast
    as ``map(attrgetter)``) as a float64 array, or None unless each is a float or an int (which the
    loop's arithmetic converts to the same float): packed as C doubles (measured on 4,192: 0.17 ms
    each, where ``np.array`` of (grad, data) pairs takes 1.2 ms)."""
    if not set(map(type, xs)) <= _NUMBER_TYPES:
        return None
    try:
        return np.frombuffer(struct.pack(f"{len(xs)}d", *xs))
    except (OverflowError, struct.error):  # an int past the floats: the loop raises it
        return None


_NUMBER_TYPES = {float, int}


class AdamConstants(NamedTuple):
    """One Adam step's numbers shared by every parameter."""

    beta1: float
    beta2: float
    step_size: float  # lr / (1 - beta1**t)
    bc2_sqrt: float  # sqrt(1 - beta2**t)
    w1: float  # 1 - beta1
    w2: float  # 1 - beta2
    shrink: float  # 1 - lr * weight_decay (decoupled decay)


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
