"""The op catalogue beyond the lecture's: each op a ``Function``, its forward beside its backward.

Every op here has the shape of ``micrograd/engine.py``'s lecture ops: ``forward``
computes the result from the operands' numbers, ``backward`` turns the gradient
of the result, ``g``, into one gradient per operand.  Both are written with
operators and ``micrograd.math``, so the one definition runs on floats
(``backward()``), on Values (``create_graph``) and on numpy arrays (``compile``).
The methods of ``Value`` they make are rows of ``micrograd/ops/__init__.py``'s table.

>>> from micrograd import Value
>>> x = Value(2.0)
>>> y = (x.exp() - x / 4).log()
>>> y.backward()
>>> round(x.grad, 6)
1.036289
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from math import nan
from threading import get_ident
from typing import Any

from .._core.coerce import to_float
from .._core.context import FORWARD_CTX, Context
from .._core.grad_mode import data_read, data_read_hooks, watched_threads
from ..engine import (
    Function,
    Mul,
    Operand,
    Value,
    new_value,
    node,
    operand,
)
from ..math.generic import (
    cos,
    div,
    equal,
    exp,
    expm1,
    isfinite,
    log,
    log1p,
    pow,  # noqa: A004 - micrograd.math.pow, for floats, Values and arrays
    sigmoid,
    sign,
    sin,
    sqrt,
    where,
)

# ---- the rest of Value's arithmetic -------------------------------------------------------


class Sub(Function):
    name = "-"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a - b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return g, -g


class Neg(Function):
    name = "neg"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return -a

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (-g,)


class Div(Function):
    name = "/"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return div(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        _, b = ctx.inputs
        # d(a/b)/da = 1/b, d(a/b)/db = -a/b**2, computed as PyTorch does: -g * ((a/b)/b)
        return div(g, b), -g * div(ctx.output, b)


class Pow(Function):
    """a**b for two Values (``Value ** Value``; ``Value ** number`` is the lecture's ``PowConst``)."""

    name = "**"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return pow(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        # d(a**b)/da = b * a**(b-1), which PyTorch sets to exactly 0 where b == 0 (even at a == 0).
        # Where that formula is finite it is 0 there anyway, and kept (plus 0.0, for the sign of
        # zero), so that under create_graph its derivative in b stays right.
        ga = g * (b * pow(a, b - 1))
        ga = where(equal(b, 0.0), where(isfinite(ga), ga + 0.0, 0.0), ga)
        # d(a**b)/db = a**b * log(a); 0 where a == 0 and b >= 0 (where log(a) would give 0 * -inf)
        gb = g * where(equal(a, 0.0) & (b >= 0.0), 0.0, ctx.output * log(a))
        return ga, gb


# ---- functions of one Value ------------------------------------------------------------------


class Abs(Function):
    name = "abs"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return abs(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * sign(x),)  # sign(0) = 0, so abs'(0) = 0


def positive(self: Value) -> Value:
    """``+x``: x itself, as in PyTorch."""
    return self


class Exp(Function):
    name = "exp"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return exp(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * ctx.output,)  # (e**x)' = e**x


class Expm1(Function):
    name = "expm1"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return expm1(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * exp(x),)


class Log(Function):
    name = "log"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return log(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x),)  # log'(x) = 1/x


class Log1p(Function):
    name = "log1p"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return log1p(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x + 1.0),)


class Sqrt(Function):
    name = "sqrt"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return sqrt(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (div(g, 2 * ctx.output),)  # sqrt'(x) = 1 / (2 sqrt(x)): inf at 0


class Sigmoid(Function):
    name = "sigmoid"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return sigmoid(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * (1 - ctx.output) * ctx.output,)  # s' = s (1 - s)


class Sin(Function):
    name = "sin"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return sin(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * cos(x),)


class Cos(Function):
    name = "cos"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return cos(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * -sin(x),)


# ---- functions of one Value and a number ---------------------------------------------------------


class LeakyReLU(Function):
    name = "leaky_relu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, slope: float) -> Any:
        return where(x > 0.0, x, x * slope)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, slope = ctx.inputs
        return where(x > 0.0, g, g * slope), None


def leaky_relu(self: Value, negative_slope: float = 0.01) -> Value:
    """x for x > 0, else negative_slope * x."""
    return LeakyReLU.apply(self, to_float(negative_slope, "leaky_relu's negative_slope"))


class ELU(Function):
    name = "elu"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, alpha: float) -> Any:
        return where(x > 0.0, x, expm1(x) * alpha)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, alpha = ctx.inputs
        # tested as PyTorch tests it (x <= 0), so that a nan takes the other branch: gradient g
        return where(x <= 0.0, g * alpha * exp(x), g), None


def elu(self: Value, alpha: float = 1.0) -> Value:
    """x for x > 0, else alpha * (e**x - 1)."""
    return ELU.apply(self, to_float(alpha, "elu's alpha"))


class Softplus(Function):
    name = "softplus"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, beta: float, threshold: float) -> Any:
        bx = x * beta
        return where(bx > threshold, x, div(log1p(exp(bx)), beta))

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, beta, threshold = ctx.inputs
        z = exp(x * beta)
        # the sigmoid of beta x, written as PyTorch does; linear above the threshold
        return where(x * beta > threshold, g, g * z / (z + 1)), None, None


def softplus(self: Value, beta: float = 1.0, threshold: float = 20.0) -> Value:
    """log(1 + e**(beta x)) / beta, linear above ``threshold`` (PyTorch's defaults)."""
    return Softplus.apply(
        self, to_float(beta, "softplus's beta"), to_float(threshold, "softplus's threshold")
    )


# ---- reading a Value as a number ------------------------------------------------------------
# Comparisons compare data; == and hash stay identity, so Values live in sets and dicts.
# Each read is reported while a hook listens (micrograd.compile's tracer, create_graph's check).


def data_of(x: Operand) -> float:
    return x.data if isinstance(x, Value) else to_float(x, "a comparison with a Value")


def comparison(symbol: str, compare: Callable[[float, float], bool]) -> Callable[[Value, Operand], bool]:
    """``self <symbol> other`` on the numbers."""

    def method(self: Value, other: Operand) -> bool:
        if data_read_hooks:
            data_read(f"comparing Values ({symbol})", "compare")
        return compare(self.data, data_of(other))

    return method


less = comparison("<", operator.lt)
less_or_equal = comparison("<=", operator.le)
greater = comparison(">", operator.gt)
greater_or_equal = comparison(">=", operator.ge)


def truth(self: Value) -> bool:
    """``if v:`` tests v != 0, as ``bool(torch.tensor(x))``."""
    if data_read_hooks:
        data_read("bool() of a Value (`if v:`)", "compare")
    return self.data != 0.0


def item(self: Value) -> float:
    """The data as a Python float, as ``torch.Tensor.item()``."""
    if data_read_hooks:
        data_read("Value.item()", "convert")
    return self.data


def as_float(self: Value) -> float:
    """``float(v)``: the data, as ``float(torch.tensor(x))``."""
    if data_read_hooks:
        data_read("float() of a Value", "convert")
    return self.data


class Pick(Function):
    """``values[label]`` as a node of the graph: the entry that ``label``, a class index held by
    a Value, picks.  Because the choice is an op, not Python indexing, the label may change:
    ``micrograd.compile(..., batched=True)`` traces one sample and replays the graph for every
    sample, each picking its own class.  The gradient goes to the picked entry alone (the label,
    an index, gets none); a label that is no index of ``values`` picks nan, and its gradient
    is nan for every entry.

    >>> from micrograd import Value
    >>> a, b = Value(-0.5), Value(-2.0)
    >>> y = Pick.apply(Value(1.0), a, b); y.backward(); y.data, b.grad, a.grad == 0
    (-2.0, 1.0, True)
    """

    name = "pick"
    builtin = True

    @staticmethod
    def forward(ctx: Context, label: Any, *values: Any) -> Any:
        picked: Any = nan
        missed: Any = nan  # the others' gradient: -0.0 (adds nothing), nan for a label out of range
        for k in reversed(range(len(values))):  # where, not an if: it runs on arrays too
            hit = equal(label, k)
            picked = where(hit, values[k], picked)
            missed = where(hit, -0.0, missed)
        ctx.save_for_backward(missed)
        return picked

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        label, (missed,) = ctx.inputs[0], ctx.saved_tensors
        grads = [where(equal(label, k), g, missed) for k in range(len(ctx.inputs) - 1)]
        return (None, *grads)


class DetachedMax(Function):
    """The largest operand, as a constant of the graph: no gradient flows back through it.

    Softmax subtracts it so that ``exp`` cannot overflow; the result does not depend on it.
    Being an op rather than a number read off the Values, it is computed again from the
    operands when ``micrograd.compile`` replays the graph on new data.

    >>> a, b = Value(1.0), Value(3.0)
    >>> top = DetachedMax.apply(a, b); (b - top).backward()
    >>> top.data, a.grad, b.grad
    (3.0, 0.0, 1.0)
    """

    name = "max (detached)"
    builtin = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        top = xs[0]
        for x in xs[1:]:
            top = where(x > top, x, top)  # (nan compares false: a nan after the first is passed over)
        return top

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (None,) * len(ctx.inputs)


class Dot(Function):
    """``start + w0*x0 + w1*x1 + ...`` as ONE node, its operands ``(start, w0, ..., x0, ...)``:
    a weighted sum, added left to right, so its number is the chain of ``*`` and ``+`` nodes'
    bit for bit (and so are the gradients), in one node instead of 2n.

    >>> w, x = [Value(2.0), Value(3.0)], [Value(4.0), Value(5.0)]
    >>> y = weighted_sum(w, x, start=1.0); y.backward()
    >>> y.data, len(y._prev), w[1].grad, x[0].grad
    (24.0, 5, 5.0, 2.0)
    """

    name = "dot"
    builtin = True

    @staticmethod
    def forward(ctx: Context, start: Any, *ws_xs: Any) -> Any:
        n = len(ws_xs) // 2
        total = start
        for k in range(n):  # (start + w0*x0) + w1*x1 + ...: the chain's order
            total = total + ws_xs[k] * ws_xs[n + k]
        return total

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        ws_xs = ctx.inputs[1:]
        n = len(ws_xs) // 2
        # d/d(start) = 1, d/d(w_k) = x_k, d/d(x_k) = w_k
        return (g, *[g * x for x in ws_xs[n:]], *[g * w for w in ws_xs[:n]])


def weighted_sum(ws: Iterable[Operand], xs: Iterable[Operand], start: Operand = 0.0) -> Value:
    """``start + w0*x0 + w1*x1 + ...`` as one ``Dot`` node (a linear layer's row, attention's q.k).

    >>> weighted_sum([Value(2.0)], [3.0]).data
    6.0
    """
    ws, xs = list(ws), list(xs)
    if len(ws) != len(xs):
        raise ValueError(f"weighted_sum needs as many weights as inputs, got {len(ws)} and {len(xs)}")
    operands = tuple([v if type(v) is Value else operand(v) for v in (start, *ws, *xs)])
    return node(Dot, Dot.forward(FORWARD_CTX, *[v.data for v in operands]), operands)


# ---- sums as one node ---------------------------------------------------------------------------


class Sum(Function):
    """``a + b + c + ...`` as one node (``micrograd.sum``), added in order as builtin ``sum`` does."""

    name = "+"
    builtin = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        total = xs[0]
        for x in xs[1:]:  # ((x0 + x1) + x2) + ...: builtin sum's order
            total = total + x
        return total

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g,) * len(ctx.inputs)  # d(a + b + ...)/d(each) = 1


def sum(values: Iterable[Operand], start: Operand = 0.0) -> Value:  # noqa: A001 - torch.sum's name
    """``start + v0 + v1 + ...`` as ONE node, where builtin ``sum`` makes one ``+`` node per term.

    The floats are added in the same order as builtin ``sum`` adds them, so the
    result and the gradients are bit for bit those of the chain of ``+`` nodes,
    with a fraction of the nodes to build and backpropagate.

    >>> import micrograd
    >>> xs = [Value(1.0), Value(2.0), Value(3.0)]
    >>> s = micrograd.sum(xs, start=10.0)
    >>> s.data, len(s._prev)
    (16.0, 4)
    """
    operands = tuple([v if type(v) is Value else operand(v) for v in (start, *values)])
    return node(Sum, Sum.forward(FORWARD_CTX, *[v.data for v in operands]), operands)


def dot(ws: Iterable[Operand], xs: Iterable[Operand], start: Operand = 0.0) -> Value:
    """``start + w0*x0 + w1*x1 + ...``: the graph ``micrograd.sum(map(operator.mul, ws, xs), start)``
    builds (a ``*`` node per pair and ONE ``+`` node), bit for bit, built in one loop.  A
    neuron's ``w . x + b``.

    >>> import micrograd
    >>> y = micrograd.dot([Value(2.0), Value(3.0)], [4.0, 5.0], start=1.0)
    >>> y.data, y._op, [p._op for p in y._prev[1:]]
    (24.0, '+', ['*', '*'])
    """
    if watched_threads and get_ident() in watched_threads:  # no_grad or detect_anomaly: the plain way
        return sum([w * x for w, x in zip(ws, xs)], start)
    first = start if type(start) is Value else operand(start)
    operands: list[Value] = [first]
    numbers = [first.data]
    forward = Mul.forward
    for w, x in zip(ws, xs):  # each product's node made here, as binary_method makes it: a call less
        if type(w) is not Value:
            w = operand(w)
        if type(x) is not Value:
            x = operand(x)
        product: Value = new_value(Value)
        product.data = number = forward(FORWARD_CTX, w.data, x.data)
        product.grad = 0.0
        product._a = w  # (as binary_method makes a node)
        product._b = x
        product._fn = Mul
        product._extra = None
        operands.append(product)
        numbers.append(number)
    return node(Sum, Sum.forward(FORWARD_CTX, *numbers), tuple(operands))
