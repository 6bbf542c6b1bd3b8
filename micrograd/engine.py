"""``Value``: a scalar that remembers how it was computed.

Every op on Values makes a new Value that stores

* ``data``   - the result, a Python float;
* ``grad``   - d(output)/d(this node), filled in by ``backward()``, starts at 0.0;
* ``_prev``  - the operands (children) as a tuple, in operand order;
* ``_op``    - a short name of the op, for printing and the graph renderer;
* ``_rule``  - the op's derivative rule (None for a leaf);

and ``v._backward()`` applies that rule once, by hand, as in micrograd's lecture.

A derivative rule takes the upstream gradient ``g``, the op's output and its
operands, and returns one gradient per operand: the chain rule of that op.
Rules are written with operators and the small helpers at the bottom of this
file, so one rule serves two callers: the fast backward pass calls it with
plain floats, and ``grad(..., create_graph=True)`` calls it with Values, which
records the backward pass itself as a graph that can be differentiated again.

Rules never capture their output node (it is passed in), so the graph has no
reference cycles and is freed by reference counting as soon as it goes out
of scope.

>>> x = Value(-4.0)
>>> y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
>>> y.backward()
>>> round(x.grad, 4)
24.4706
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Callable, Iterable
from threading import get_ident
from typing import Any, Union

from . import fmath
from .grad_mode import _no_grad_threads

Number = int | float
Operand = Union["Value", int, float]
# rule(g, out, *operands) -> one gradient per operand; floats in, floats out, or Values in, Values out.
Rule = Callable[..., tuple[Any, ...]]


def _to_float(x: object, what: str = "Value()") -> float:
    """The float a number stands for; a clear TypeError for anything else."""
    if type(x) is float:
        return x
    if isinstance(x, numbers.Real):  # int, bool, Fraction, numpy scalars
        return float(x)
    if isinstance(x, Value):
        raise TypeError(
            f"{what} expects a real number, got a Value ({x!r}); use it directly, or x.detach() for a copy"
        )
    raise TypeError(
        f"{what} expects a real number (int, float or numpy scalar), got {type(x).__name__}: {x!r}"
    )


class Value:
    """A scalar node of the computation graph.

    >>> a = Value(2.0, label="a")
    >>> b = a * a + 1
    >>> b
    Value(data=5.0, grad=0.0)
    >>> b.backward()
    >>> a.grad
    4.0
    """

    __slots__ = ("data", "grad", "_prev", "_op", "_rule", "label")

    data: float
    grad: float
    _prev: tuple[Value, ...]
    _op: str
    _rule: Rule | None
    label: str

    def __init__(self, data: Number, _children: Iterable[Value] = (), _op: str = "", label: str = "") -> None:
        self.data = _to_float(data)
        self.grad = 0.0
        self._prev = tuple(_children)
        for child in self._prev:
            if not isinstance(child, Value):
                raise TypeError(f"Value children must be Values, got {type(child).__name__}: {child!r}")
        self._op = _op
        self._rule = None  # built by hand: no derivative rule, gradients stop here
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}: {label!r}")
        self.label = label

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{extra})"

    def __float__(self) -> float:
        if _tracing_threads:
            _data_read_while_tracing("float() of a Value")
        return self.data

    def item(self) -> float:
        """The data as a Python float, as ``torch.Tensor.item()``."""
        if _tracing_threads:
            _data_read_while_tracing("Value.item()")
        return self.data

    def detach(self) -> Value:
        """A new leaf with the same data, cut off from the graph."""
        return _leaf(self.data)

    # ---- arithmetic: each op's forward beside its derivative rule ----------

    @staticmethod
    def _add_rule(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        return g, g

    def __add__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(self.data + other.data, (self, other), "+", Value._add_rule)

    def __radd__(self, other: Operand) -> Value:  # other + self; sum() starts with 0 + v
        other = other if isinstance(other, Value) else _constant(other)
        return _make(other.data + self.data, (other, self), "+", Value._add_rule)

    @staticmethod
    def _sub_rule(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        return g, -g

    def __sub__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(self.data - other.data, (self, other), "-", Value._sub_rule)

    def __rsub__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(other.data - self.data, (other, self), "-", Value._sub_rule)

    @staticmethod
    def _mul_rule(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        return g * b, g * a

    def __mul__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(self.data * other.data, (self, other), "*", Value._mul_rule)

    def __rmul__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(other.data * self.data, (other, self), "*", Value._mul_rule)

    @staticmethod
    def _div_rule(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        # d(a/b)/da = 1/b, d(a/b)/db = -a/b**2, computed as PyTorch does: -g * ((a/b)/b)
        return div(g, b), -g * div(out, b)

    def __truediv__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(fmath.div(self.data, other.data), (self, other), "/", Value._div_rule)

    def __rtruediv__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else _constant(other)
        return _make(fmath.div(other.data, self.data), (other, self), "/", Value._div_rule)

    @staticmethod
    def _pow_rule(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        # d(a**b)/da = b * a**(b-1); d(a**b)/db = a**b * log(a).
        # PyTorch's conventions: no base gradient where b == 0 (even at a == 0), and
        # no exponent gradient at a == 0 with b >= 0 (where log(a) would give 0 * -inf).
        # As Values (create_graph), the base gradient keeps its formula where that is
        # finite: its value is 0 all the same, and its derivative in b stays right.
        x, y = _data(a), _data(b)
        if y == 0.0 and not (isinstance(b, Value) and x != 0.0 and math.isfinite(x)):
            ga = 0.0
        else:
            ga = g * (b * pow_(a, b - 1))
        gb = g * 0.0 if (x == 0.0 and y >= 0.0) else g * (out * log(a))
        return ga, gb

    def __pow__(self, other: Operand) -> Value:
        if isinstance(other, Value):
            return _make(fmath.pow(self.data, other.data), (self, other), "**", Value._pow_rule)
        exponent = _to_float(other, "the exponent of **")
        op, rule = _pow_by_constant(exponent)
        return _make(fmath.pow(self.data, exponent), (self,), op, rule)

    def __rpow__(self, other: Operand) -> Value:  # number ** Value
        base = other if isinstance(other, Value) else _constant(other)
        return _make(fmath.pow(base.data, self.data), (base, self), "**", Value._pow_rule)

    @staticmethod
    def _neg_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (-g,)

    def __neg__(self) -> Value:
        return _make(-self.data, (self,), "neg", Value._neg_rule)

    def __pos__(self) -> Value:
        return self  # +x is x, as in PyTorch

    def __abs__(self) -> Value:
        return self.abs()

    @staticmethod
    def _abs_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * sign(a),)  # sign(0) = 0, so abs'(0) = 0

    def abs(self) -> Value:
        """|x|; its derivative at 0 is 0, as in PyTorch."""
        return _make(abs(self.data), (self,), "abs", Value._abs_rule)

    # ---- elementary functions ---------------------------------------------

    @staticmethod
    def _exp_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * out,)  # (e**x)' = e**x

    def exp(self) -> Value:
        """e**x; inf on overflow."""
        return _make(fmath.exp(self.data), (self,), "exp", Value._exp_rule)

    @staticmethod
    def _log_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (div(g, a),)  # log'(x) = 1/x

    def log(self) -> Value:
        """Natural logarithm; -inf at 0 and nan below 0."""
        return _make(fmath.log(self.data), (self,), "log", Value._log_rule)

    @staticmethod
    def _sqrt_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (div(g, 2 * out),)  # sqrt'(x) = 1 / (2 sqrt(x)): inf at 0

    def sqrt(self) -> Value:
        """Square root; nan below 0."""
        return _make(fmath.sqrt(self.data), (self,), "sqrt", Value._sqrt_rule)

    @staticmethod
    def _tanh_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * (1 - out * out),)  # tanh' = 1 - tanh**2

    def tanh(self) -> Value:
        """Hyperbolic tangent."""
        return _make(fmath.tanh(self.data), (self,), "tanh", Value._tanh_rule)

    @staticmethod
    def _sigmoid_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * (1 - out) * out,)  # s' = s (1 - s)

    def sigmoid(self) -> Value:
        """1 / (1 + e**-x)."""
        return _make(fmath.sigmoid(self.data), (self,), "sigmoid", Value._sigmoid_rule)

    @staticmethod
    def _relu_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        # Gated by the output, as PyTorch's threshold_backward: relu'(0) = 0.
        return (0.0 if out <= 0.0 else g,)

    def relu(self) -> Value:
        """max(0, x); relu'(0) = 0."""
        x = self.data
        return _make(0.0 if x < 0.0 else x, (self,), "ReLU", Value._relu_rule)

    def leaky_relu(self, negative_slope: float = 0.01) -> Value:
        """x for x > 0, else negative_slope * x."""
        slope = _to_float(negative_slope, "leaky_relu's negative_slope")
        x = self.data
        return _make(x if x > 0.0 else x * slope, (self,), "leaky_relu", _bound(_leaky_relu_rule, slope))

    def elu(self, alpha: float = 1.0) -> Value:
        """x for x > 0, else alpha * (e**x - 1)."""
        alpha = _to_float(alpha, "elu's alpha")
        x = self.data
        return _make(x if x > 0.0 else fmath.expm1(x) * alpha, (self,), "elu", _bound(_elu_rule, alpha))

    def softplus(self, beta: float = 1.0, threshold: float = 20.0) -> Value:
        """log(1 + e**(beta x)) / beta, linear above ``threshold`` (PyTorch's defaults)."""
        beta = _to_float(beta, "softplus's beta")
        threshold = _to_float(threshold, "softplus's threshold")
        x = self.data
        bx = x * beta
        y = x if bx > threshold else fmath.div(fmath.log1p(fmath.exp(bx)), beta)
        return _make(y, (self,), "softplus", _bound(_softplus_rule, beta, threshold))

    @staticmethod
    def _sin_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * cos(a),)

    def sin(self) -> Value:
        """Sine (radians)."""
        return _make(fmath.sin(self.data), (self,), "sin", Value._sin_rule)

    @staticmethod
    def _cos_rule(g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        return (g * -sin(a),)

    def cos(self) -> Value:
        """Cosine (radians)."""
        return _make(fmath.cos(self.data), (self,), "cos", Value._cos_rule)

    # ---- comparisons: by data; == and hash stay identity (Values live in sets and dicts)

    def __lt__(self, other: Operand) -> bool:
        if _tracing_threads:
            _data_read_while_tracing("comparing Values (<)")
        return self.data < _data(other)

    def __le__(self, other: Operand) -> bool:
        if _tracing_threads:
            _data_read_while_tracing("comparing Values (<=)")
        return self.data <= _data(other)

    def __gt__(self, other: Operand) -> bool:
        if _tracing_threads:
            _data_read_while_tracing("comparing Values (>)")
        return self.data > _data(other)

    def __ge__(self, other: Operand) -> bool:
        if _tracing_threads:
            _data_read_while_tracing("comparing Values (>=)")
        return self.data >= _data(other)

    # ---- backpropagation ----------------------------------------------------

    def backward(self, gradient: Number = 1.0) -> None:
        """Backpropagate from this node: add d(self)/d(node) * gradient into every
        node's ``.grad``.

        Gradients accumulate, as in PyTorch: calling ``backward`` twice adds twice,
        so reset them between training steps (``model.zero_grad()``, or
        ``v.grad = 0.0``).

        >>> x = Value(3.0)
        >>> (x * x).backward()
        >>> x.grad
        6.0
        """
        from .autograd import backward

        backward(self, gradient)

    def _backward(self) -> None:
        """One chain-rule step, as micrograd's lecture calls it by hand: add
        ``self.grad`` times the local derivative into each child's ``.grad``.
        A leaf does nothing."""
        if self._rule is None:
            return
        grads = self._rule(self.grad, self.data, *(c.data for c in self._prev))
        for child, g in zip(self._prev, grads):
            child.grad += g


def _sum_rule(g: Any, out: Any, *operands: Any) -> tuple[Any, ...]:
    return (g,) * len(operands)  # d(a + b + ...)/d(each) = 1


def sum(values: Iterable[Operand], start: Operand = 0.0) -> Value:  # noqa: A001 - torch.sum's name
    """``start + v0 + v1 + ...`` as ONE node, where builtin ``sum`` makes one ``+``
    node per term.

    The floats are added in the same order as builtin ``sum`` adds them, so the
    result and the gradients are bit-for-bit those of the chain of ``+`` nodes,
    with a fraction of the nodes to build and backpropagate.

    >>> import micrograd
    >>> xs = [Value(1.0), Value(2.0), Value(3.0)]
    >>> s = micrograd.sum(xs, start=10.0)
    >>> s.data, len(s._prev)
    (16.0, 4)
    """
    operands = [v if isinstance(v, Value) else _constant(v) for v in (start, *values)]
    total = operands[0].data
    for v in operands[1:]:
        total += v.data
    return _make(total, tuple(operands), "+", _sum_rule)


# ---- compiled replay's tracer asks to hear of data turned into Python values ---------

# Idents of the threads tracing a function for micrograd.compile.
_tracing_threads: set[int] = set()


def _data_read_while_tracing(what: str) -> None:
    if get_ident() in _tracing_threads:
        from .compile import TracerWarning

        warnings.warn(
            f"{what} while micrograd.compile traces: the outcome is baked into the compiled step "
            "and will not follow new inputs or parameters (as with torch.jit.trace)",
            TracerWarning,
            stacklevel=3,
        )


# ---- building nodes ----------------------------------------------------------

_new_value = object.__new__


def _make(data: float, prev: tuple[Value, ...], op: str, rule: Rule) -> Value:
    """The output node of an op; a plain leaf inside ``no_grad``."""
    out: Value = _new_value(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    if _no_grad_threads and get_ident() in _no_grad_threads:
        out._prev, out._op, out._rule = (), "", None
    else:
        out._prev, out._op, out._rule = prev, op, rule
    return out


def _leaf(data: float) -> Value:
    out: Value = _new_value(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    out._prev, out._op, out._rule = (), "", None
    return out


def _constant(x: object) -> Value:
    """A number operand as a constant leaf (clear TypeError for anything else)."""
    return _leaf(_to_float(x, "an operand of a Value op"))


def _data(x: Operand) -> float:
    if isinstance(x, Value):
        return x.data
    return _to_float(x, "a comparison with a Value")


# ---- derivative rules that take a parameter ----------------------------------------
# Each is a plain function of (parameter(s), g, out, a); a node stores it bound to its
# parameter values with functools.partial (cached per value), so the parameters stay
# readable as ``rule.args`` (compiled replay reads them there).


def _pow_by_constant_rule(n: float, g: Any, out: Any, a: Any) -> tuple[Any, ...]:
    # d(x**n)/dx = n * x**(n-1); exactly 0 for n == 0, as in PyTorch (even at x == 0)
    return (0.0 if n == 0.0 else g * (n * pow_(a, n - 1)),)


def _leaky_relu_rule(slope: float, g: Any, out: Any, a: Any) -> tuple[Any, ...]:
    return (g if a > 0.0 else g * slope,)


def _elu_rule(alpha: float, g: Any, out: Any, a: Any) -> tuple[Any, ...]:
    return (g if a > 0.0 else g * alpha * exp(a),)


def _softplus_rule(beta: float, threshold: float, g: Any, out: Any, a: Any) -> tuple[Any, ...]:
    if a * beta > threshold:
        return (g,)
    z = exp(a * beta)
    return (g * z / (z + 1),)  # the sigmoid of beta x, written as PyTorch does


@functools.lru_cache(maxsize=256)
def _pow_by_constant(n: float) -> tuple[str, Rule]:
    return f"**{n:g}", functools.partial(_pow_by_constant_rule, n)


@functools.lru_cache(maxsize=256)
def _bound(rule: Callable[..., tuple[Any, ...]], *params: float) -> Rule:
    return functools.partial(rule, *params)


# ---- the math that rules use: floats in, floats out; Values in, Values out --------


def div(a: Any, b: Any) -> Any:
    return a / b if isinstance(a, Value) or isinstance(b, Value) else fmath.div(a, b)


def pow_(a: Any, b: Any) -> Any:
    return a**b if isinstance(a, Value) or isinstance(b, Value) else fmath.pow(a, b)


def exp(a: Any) -> Any:
    return a.exp() if isinstance(a, Value) else fmath.exp(a)


def log(a: Any) -> Any:
    return a.log() if isinstance(a, Value) else fmath.log(a)


def sin(a: Any) -> Any:
    return a.sin() if isinstance(a, Value) else fmath.sin(a)


def cos(a: Any) -> Any:
    return a.cos() if isinstance(a, Value) else fmath.cos(a)


def sign(a: Any) -> float:
    """A constant: the derivative of sign is 0 wherever it exists."""
    return fmath.sign(_data(a))
