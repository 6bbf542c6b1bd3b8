"""Backpropagation on scalars, in one file: ops, ``Value`` and ``backward()``.

A ``Value`` wraps one number, ``data``, and remembers how it was computed: the
op that made it (``_op``) and that op's operands (``_prev``, its children).
Computing with Values therefore records a graph.  ``backward()`` walks that
graph from the output back to the inputs and applies the chain rule at every
op: each node's ``grad``, d(output)/d(node), is the sum over the ops that used
the node of d(output)/d(op's result) times the op's local derivative
d(op's result)/d(node).

Every op is a ``Function``: a ``forward`` that computes the result from the
operands' numbers, beside a ``backward`` that turns the gradient of the result
into one gradient per operand.  That one definition serves everywhere: the
float backward pass here, ``grad(..., create_graph=True)`` (the rules run on
Values, so the backward pass is differentiable), compiled replay on numpy
arrays, ``explain`` and the pictures.  Users define their own ops the same way
(PyTorch's ``torch.autograd.Function``), or the way micrograd's lecture does,
by assigning a ``_backward`` closure to a hand-built node.

Reading order: ``Function`` and ``Context``; the four ops of micrograd's lecture
(``+``, ``*``, ``**``, ``relu``) and the rest of Value's arithmetic (``-``, negation,
``/``); how an op becomes a method of ``Value``; ``Value``, whose first methods are
the lecture's and ``backward()``; the graph walk and the chain-rule loop; the
other ops; last, below the reading path, the tricks that make it fast, each
named as such, and the machinery of hooks and ``detect_anomaly``.

>>> x = Value(-4.0)
>>> y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
>>> y.backward()
>>> round(x.grad, 4)
24.4706
"""

from __future__ import annotations

import gc
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from threading import get_ident
from typing import Any, ClassVar, Union

from .grad_mode import (
    _anomaly_threads,
    _data_read,
    _data_read_hooks,
    _hear_data_reads,
    _no_grad_threads,
    _watched_threads,
)
from .math import cos as _cos
from .math import div, equal, exp, expm1, isfinite, log, log1p, pow, sign, where  # noqa: A004
from .math import sigmoid as _sigmoid
from .math import sin as _sin
from .math import sqrt as _sqrt
from .math import tanh as _tanh
from .specialise import backward_on_floats, forward_on_floats, inline_forward

Number = int | float
Operand = Union["Value", int, float]


# ---- what an op is ---------------------------------------------------------------------


class Context:
    """What an op's ``backward`` knows of its ``forward`` (PyTorch's ``ctx``).

    ``ctx.inputs`` and ``ctx.output`` are the op's inputs and result (PyTorch
    hands them to ``setup_context``; a scalar node holds them anyway, so here
    they are always there and cost nothing).  ``save_for_backward(*values)``
    keeps anything else forward computed (read it back as ``saved_tensors``);
    ``needs_input_grad[i]`` says whether input ``i`` is a Value (numbers passed
    as parameters get no gradient); any other attribute you set
    (``ctx.slope = slope``) is kept as well.
    """

    # Slots for what every Context has; user attributes go to __dict__, made only when one is set.
    __slots__ = ("inputs", "output", "saved_tensors", "needs_input_grad", "_args", "_positions", "__dict__")

    inputs: tuple[Any, ...]
    output: Any
    saved_tensors: tuple[Any, ...]
    needs_input_grad: tuple[bool, ...]
    _args: tuple[Any, ...] | None  # kept by a node: the arguments, when some were numbers
    _positions: list[int] | None  # ... and where the Values among them are

    def __init__(self, needs_input_grad: tuple[bool, ...], inputs: tuple[Any, ...] = ()) -> None:
        self.inputs = inputs
        self.output = None  # known once forward has returned
        self.saved_tensors = ()
        self.needs_input_grad = needs_input_grad
        self._args = self._positions = None

    def save_for_backward(self, *values: Any) -> None:
        """Keep ``values`` for ``backward`` (read them back as ``ctx.saved_tensors``)."""
        self.saved_tensors = values


class Function:
    """An op: ``forward`` computes its result, ``backward`` its chain rule, written side by side once.

    The shape is PyTorch's ``torch.autograd.Function``::

        class Swish(Function):
            @staticmethod
            def forward(ctx, x):                   # the inputs' numbers in, one number out
                s = micrograd.math.sigmoid(x)
                ctx.save_for_backward(x, s)        # what backward needs
                return x * s

            @staticmethod
            def backward(ctx, grad_output):        # d(root)/d(result) in, one gradient per input out
                x, s = ctx.saved_tensors
                return grad_output * (s + x * s * (1 - s))

        y = Swish.apply(Value(0.5))                # a Value like any other

    ``apply`` accepts Values and plain numbers; numbers are parameters of the
    op (passed to ``forward`` as they are) and ``backward`` returns ``None``
    for them.  Besides what ``save_for_backward`` kept, ``backward`` can read
    the op's inputs and result as ``ctx.inputs`` and ``ctx.output``.  A scalar
    engine's simplifications: every input and the result is one number, so
    there is one ``grad_output`` and ``forward`` returns one number.  Written
    with operators and ``micrograd.math`` (``where`` instead of an ``if`` on
    data), the same two methods run on floats (``backward()``), on Values
    (``grad(..., create_graph=True)``) and on numpy arrays
    (``micrograd.compile``).  ``name`` is what pictures and ``explain`` call
    the op (default: the class name).

    >>> class Square(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         (x,) = ctx.inputs
    ...         return 2 * x * grad_output
    >>> x = Value(3.0)
    >>> Square.apply(x).backward()
    >>> x.grad
    6.0
    """

    name: ClassVar[str] = ""
    # Set on the engine's own ops: their backward returns a well-formed tuple, so it is not checked.
    _trusted: ClassVar[bool] = False

    # The engine's own ops rewritten for floats (speed trick 5): forward, and backward as a
    # function (g, output, *inputs); other ops' forward as it is, and None.
    _float_forward: ClassVar[Callable[..., Any]]
    _float_backward: ClassVar[Callable[..., Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__
        cls._trusted = bool(cls.__dict__.get("_trusted", False))
        cls._float_forward = forward_on_floats(cls.forward) if cls._trusted else cls.forward
        cls._float_backward = backward_on_floats(cls.forward, cls.backward) if cls._trusted else None

    @staticmethod
    def forward(ctx: Context, *args: Any) -> Any:
        """Compute the op's result from its inputs (numbers, or Values or arrays in the other modes)."""
        raise NotImplementedError("a Function subclass must define forward(ctx, *inputs) as a @staticmethod")

    @staticmethod
    def backward(ctx: Context, *grad_outputs: Any) -> Any:
        """Given d(root)/d(result), return d(root)/d(input) for each input (None for none)."""
        raise NotImplementedError(
            "a Function subclass must define backward(ctx, grad_output) as a @staticmethod"
        )

    @classmethod
    def apply(cls, *args: Any) -> Value:
        """Run the op on ``args`` (Values or numbers) and return its result as a node of the graph."""
        return _apply(cls, args)


# ---- the four ops of micrograd's lecture ----------------------------------------------


class Add(Function):
    name = "+"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return g, g  # d(a+b)/da = d(a+b)/db = 1: the gradient flows to both unchanged


class Mul(Function):
    name = "*"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        return g * b, g * a  # d(a*b)/da = b, d(a*b)/db = a


class PowConst(Function):
    """x**n for a number n (micrograd's ``**``); the op is called ``**n``."""

    name = "**"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any, n: float) -> Any:
        return pow(x, n)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, n = ctx.inputs
        # d(x**n)/dx = n * x**(n-1); exactly 0 for n == 0, as in PyTorch (even at x == 0)
        return (0.0 if n == 0.0 else g * (n * pow(x, n - 1))), None


class ReLU(Function):
    name = "ReLU"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return where(x < 0.0, 0.0, x)  # max(0, x); nan and -0.0 pass through, as in PyTorch

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (where(ctx.output <= 0.0, 0.0, g),)  # gated by the output, as PyTorch: relu'(0) = 0


# ---- the rest of Value's arithmetic -------------------------------------------------------


class Sub(Function):
    name = "-"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a - b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return g, -g


class Neg(Function):
    name = "neg"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return -a

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (-g,)


class Div(Function):
    name = "/"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return div(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        _, b = ctx.inputs
        # d(a/b)/da = 1/b, d(a/b)/db = -a/b**2, computed as PyTorch does: -g * ((a/b)/b)
        return div(g, b), -g * div(ctx.output, b)


# ---- how an op becomes a method of Value ------------------------------------------------


def _binary_method(fn: type[Function], reflected: bool = False) -> Callable[[Value, Operand], Value]:
    """``self <op> other`` (``other <op> self`` if ``reflected``) as ``fn.apply(self, other)``, a
    number operand becoming a constant leaf.  Written out inline rather than calling ``apply``:
    these are the hottest lines of the engine (speed tricks 1, 2 and 6, below)."""
    forward, name = fn._float_forward, fn.name

    def method(self: Value, other: Operand) -> Value:
        if type(other) is not Value:
            other = _operand(other)
        node: Value = _new_value(Value)
        node.data = forward(_ENGINE_CTX, self.data, other.data)
        node.grad = 0.0
        if _watched_threads and get_ident() in _watched_threads:
            return _watched(node, (self, other), fn, None)  # inside no_grad or detect_anomaly
        node._prev, node._op, node._fn, node._extra = (self, other), name, fn, None
        return node

    method = inline_forward(method, fn.forward)  # speed trick 6

    def reflected_method(self: Value, other: Operand) -> Value:
        return method(other if type(other) is Value else _operand(other), self)

    return reflected_method if reflected else method


def _unary_method(fn: type[Function], doc: str) -> Callable[[Value], Value]:
    """``self.<op>()`` as ``fn.apply(self)``, written out inline as ``_binary_method``."""
    forward, name = fn._float_forward, fn.name

    def method(self: Value) -> Value:
        node: Value = _new_value(Value)
        node.data = forward(_ENGINE_CTX, self.data)
        node.grad = 0.0
        if _watched_threads and get_ident() in _watched_threads:
            return _watched(node, (self,), fn, None)
        node._prev, node._op, node._fn, node._extra = (self,), name, fn, None
        return node

    method = inline_forward(method, fn.forward)  # speed trick 6
    method.__doc__ = doc
    return method


# ---- Value -----------------------------------------------------------------------------


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

    __slots__ = ("data", "grad", "_prev", "_op", "_fn", "_extra")

    data: float
    grad: float
    _prev: tuple[Value, ...]  # the operands, in order
    _op: str  # the op's name, for printing
    _fn: type[Function] | None  # the op (None for a leaf)
    _extra: _Extra | None  # what few nodes have: what the op kept for backward, a label, hooks

    def __init__(self, data: Number, _children: Iterable[Value] = (), _op: str = "", label: str = "") -> None:
        self.data = _to_float(data)
        self.grad = 0.0
        self._prev = tuple(_children)
        for child in self._prev:
            if not isinstance(child, Value):
                raise TypeError(f"Value children must be Values, got {type(child).__name__}: {child!r}")
        if not isinstance(_op, str):
            raise TypeError(f"_op must be a str, got {type(_op).__name__}: {_op!r}")
        self._op = _op
        self._fn = None  # a node built by hand gets its rule as a `_backward` closure (the lecture's way)
        self._extra = None
        self.label = label

    __add__ = _binary_method(Add)  # self + other, that is Add.apply(self, other)
    __mul__ = _binary_method(Mul)  # self * other

    def __pow__(self, other: Operand) -> Value:
        if isinstance(other, Value):
            return Pow.apply(self, other)
        exponent = _to_float(other, "the exponent of **")
        out = PowConst.apply(self, exponent)
        if out._fn is PowConst:
            out._op = _pow_name(exponent)
        return out

    relu = _unary_method(ReLU, "max(0, x); relu'(0) = 0.")

    def backward(self, gradient: Number = 1.0) -> None:
        """Backpropagate from this node: add d(self)/d(node) * gradient into every
        node's ``.grad``.

        Gradients accumulate, as in PyTorch: calling ``backward`` twice adds twice,
        so reset them between training steps (``model.zero_grad()``, or
        ``v.grad = 0.0``).  A ``.grad`` of 0.0 counts as no gradient yet (PyTorch's
        None), so a first gradient of -0.0 keeps its sign.

        >>> x = Value(3.0)
        >>> (x * x).backward()
        >>> x.grad
        6.0
        """
        seed = _to_float(gradient, "backward()'s gradient")
        if self._op is _NO_GRAD:
            raise RuntimeError(
                "backward() on a Value computed under no_grad(): no graph was recorded, so no gradient "
                "can reach its inputs. Compute it outside the no_grad() block (or inside enable_grad())"
            )
        with _collector_paused():
            grads = _topological_order((self,))
            grads[self] = seed
            _backpropagate(grads, create_graph=False, into_grad=True)

    __neg__ = _unary_method(Neg, "-x.")
    __radd__ = _binary_method(Add, reflected=True)  # other + self; sum() starts with 0 + v
    __sub__ = _binary_method(Sub)
    __rsub__ = _binary_method(Sub, reflected=True)
    __rmul__ = _binary_method(Mul, reflected=True)
    __truediv__ = _binary_method(Div)
    __rtruediv__ = _binary_method(Div, reflected=True)

    def __rpow__(self, other: Operand) -> Value:  # number ** Value
        return Pow.apply(_constant(other), self)

    @property
    def label(self) -> str:
        """A name for pictures and messages ("" for none)."""
        extra = self._extra
        return "" if extra is None else extra.label

    @label.setter
    def label(self, label: str) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}: {label!r}")
        if label or self._extra is not None:
            _extra_of(self).label = label

    def __copy__(self) -> Value:
        """``copy.copy(v)``: a node with the same fields, whose label is its own (a shallow copy
        would share the ``_extra`` that holds it)."""
        out: Value = _new_value(type(self))
        out.data, out.grad, out._prev, out._op, out._fn = self.data, self.grad, self._prev, self._op, self._fn
        extra = self._extra
        out._extra = None if extra is None else extra.copy()
        return out

    @property
    def _ctx(self) -> Any:
        """What the node's op kept for its backward (speed trick 3); None for most nodes."""
        extra = self._extra
        return None if extra is None else extra.ctx

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{extra})"

    # ---- the lecture's hand-written chain-rule step --------------------------------------

    @property
    def _backward(self) -> Callable[[], None]:
        """One chain-rule step, as micrograd's lecture calls it by hand: add
        ``self.grad`` times the local derivatives into the operands' ``.grad``.
        Assign a closure to it to give a hand-built node its rule::

            out = Value(t, (self,), 'tanh')
            def _backward():
                self.grad += (1 - t**2) * out.grad
            out._backward = _backward
        """
        if self._fn is _HandWritten:
            closure: Callable[[], None] = self._ctx
            return closure
        return self._chain_step

    @_backward.setter
    def _backward(self, closure: Callable[[], None]) -> None:
        if not callable(closure):
            raise TypeError(f"_backward must be a function of no arguments, got {type(closure).__name__}")
        self._fn = _HandWritten
        _extra_of(self).ctx = closure

    def _chain_step(self) -> None:
        if self._fn is None:
            return  # a leaf
        for child, g in zip(self._prev, _vjp(self, self.grad, False)):
            if g is not None:
                child.grad += g

    # ---- the other ops (defined below backward's loop) -------------------------------------

    def __pos__(self) -> Value:
        return self  # +x is x, as in PyTorch

    def __abs__(self) -> Value:
        return self.abs()

    def abs(self) -> Value:
        """|x|; its derivative at 0 is 0, as in PyTorch."""
        return _apply_values(Abs, (self,))

    def exp(self) -> Value:
        """e**x; inf on overflow."""
        return _apply_values(Exp, (self,))

    def expm1(self) -> Value:
        """e**x - 1, accurate near 0."""
        return _apply_values(Expm1, (self,))

    def log(self) -> Value:
        """Natural logarithm; -inf at 0 and nan below 0."""
        return _apply_values(Log, (self,))

    def log1p(self) -> Value:
        """log(1 + x), accurate near 0."""
        return _apply_values(Log1p, (self,))

    def sqrt(self) -> Value:
        """Square root; nan below 0."""
        return _apply_values(Sqrt, (self,))

    def tanh(self) -> Value:
        """Hyperbolic tangent."""
        return _apply_values(Tanh, (self,))

    def sigmoid(self) -> Value:
        """1 / (1 + e**-x)."""
        return _apply_values(Sigmoid, (self,))

    def sin(self) -> Value:
        """Sine (radians)."""
        return _apply_values(Sin, (self,))

    def cos(self) -> Value:
        """Cosine (radians)."""
        return _apply_values(Cos, (self,))

    def leaky_relu(self, negative_slope: float = 0.01) -> Value:
        """x for x > 0, else negative_slope * x."""
        return LeakyReLU.apply(self, _to_float(negative_slope, "leaky_relu's negative_slope"))

    def elu(self, alpha: float = 1.0) -> Value:
        """x for x > 0, else alpha * (e**x - 1)."""
        return ELU.apply(self, _to_float(alpha, "elu's alpha"))

    def softplus(self, beta: float = 1.0, threshold: float = 20.0) -> Value:
        """log(1 + e**(beta x)) / beta, linear above ``threshold`` (PyTorch's defaults)."""
        beta = _to_float(beta, "softplus's beta")
        return Softplus.apply(self, beta, _to_float(threshold, "softplus's threshold"))

    # ---- reading the number: comparisons, float(), bool() ---------------------------------
    # Comparisons compare data; == and hash stay identity, so Values live in sets and dicts.
    # Each read is reported while a hook listens (micrograd.compile's tracer).

    def __lt__(self, other: Operand) -> bool:
        if _data_read_hooks:
            _data_read("comparing Values (<)", "compare")
        return self.data < _data(other)

    def __le__(self, other: Operand) -> bool:
        if _data_read_hooks:
            _data_read("comparing Values (<=)", "compare")
        return self.data <= _data(other)

    def __gt__(self, other: Operand) -> bool:
        if _data_read_hooks:
            _data_read("comparing Values (>)", "compare")
        return self.data > _data(other)

    def __ge__(self, other: Operand) -> bool:
        if _data_read_hooks:
            _data_read("comparing Values (>=)", "compare")
        return self.data >= _data(other)

    def __bool__(self) -> bool:
        """``if v:`` tests v != 0, as ``bool(torch.tensor(x))``."""
        if _data_read_hooks:
            _data_read("bool() of a Value (`if v:`)", "compare")
        return self.data != 0.0

    def __float__(self) -> float:
        if _data_read_hooks:
            _data_read("float() of a Value", "convert")
        return self.data

    def item(self) -> float:
        """The data as a Python float, as ``torch.Tensor.item()``."""
        if _data_read_hooks:
            _data_read("Value.item()", "convert")
        return self.data

    def detach(self) -> Value:
        """A new leaf with the same data, cut off from the graph."""
        return _leaf(self.data)

    def register_hook(self, hook: Callable[[Any], Any]) -> RemovableHandle:
        """Call ``hook(grad)`` when this node's gradient is complete in ``backward()`` or
        ``grad()``; a number it returns replaces the gradient (as PyTorch's
        ``Tensor.register_hook``).  Leaves and results alike; eager only (``compile``
        refuses a graph with hooks).  Returns a handle: ``handle.remove()``.

        >>> x = Value(2.0)
        >>> h = x.register_hook(lambda g: g * 10)
        >>> (x * x).backward()
        >>> x.grad
        40.0
        >>> h.remove()
        """
        if not callable(hook):
            raise TypeError(f"register_hook needs a function of the gradient, got {type(hook).__name__}")
        extra = _extra_of(self)
        if extra.hooks is None:
            extra.hooks = []
        extra.hooks.append(hook)
        _HOOKS[0] += 1
        return RemovableHandle(self, hook)

    # numpy: `array * v` must not build an object array of Values; numpy defers to Value's
    # reflected operators instead, which reject arrays with a clear error.
    __array_ufunc__ = None


# ---- backward(): the graph walk and the chain-rule loop ----------------------------------


def _topological_order(roots: Iterable[Value]) -> dict[Value, Any]:
    """Every node reachable from ``roots``, each after all of its operands, as the
    keys of a dict (insertion-ordered) whose values are None: the gradients to come.

    Depth-first without recursion, so a graph a million nodes deep is fine:
    ``path`` holds the nodes being expanded and ``pending`` an iterator over
    each one's operands; a node is emitted once all of its operands have been.
    """
    order: dict[Value, Any] = {}  # doubles as the visited set
    for root in roots:
        if root in order:
            continue
        path = [root]
        pending = [iter(root._prev)]
        while pending:
            for child in pending[-1]:
                if child not in order:  # (a node on the path can't recur: the graph is acyclic)
                    path.append(child)
                    pending.append(iter(child._prev))
                    break
            else:
                order[path.pop()] = None
                pending.pop()
    return order


def _backpropagate(grads: dict[Value, Any], create_graph: bool, into_grad: bool) -> dict[Value, Any]:
    """The chain rule, node by node, from the outputs back to the leaves.

    ``grads`` is a ``_topological_order`` whose outputs hold their seed
    gradients; each node, visited after every node computed from it, hands
    its gradient to its op's ``backward``, and the gradient each operand gets
    back adds into that operand's entry (a node used twice gets the sum).
    Floats in, floats out; with ``create_graph`` the gradients are Values and
    the backward pass is recorded as a graph of its own.  ``into_grad`` adds
    each node's gradient into its ``.grad`` (``backward()``) instead of only
    returning them (``grad()``).
    """
    watch = _HOOKS[0] > 0 or get_ident() in _anomaly_threads  # hooks to call, or detect_anomaly
    fast = not (create_graph or watch)
    for node in reversed(grads):
        g = grads[node]
        if g is None:
            continue  # no gradient flows here
        if watch:
            g = grads[node] = _hooked(node, g, create_graph)
        if into_grad:
            node.grad = node.grad + g if node.grad else g  # 0.0 counts as none yet, so -0.0 keeps its sign
        fn = node._fn
        if fn is None:
            if node._prev:
                raise _no_rule_error(node)
            continue  # a leaf
        prev = node._prev
        rule = fn._float_backward
        if not fast or rule is None or node._extra is not None:
            received = _vjp(node, g, create_graph)
            if watch and get_ident() in _anomaly_threads:
                _check_finite(node, g, received, grads)
        elif len(prev) == 2:  # speed trick 5: the engine's own ops, their rule on floats
            a, b = prev
            ga, gb = rule(g, node.data, a.data, b.data)
            so_far = grads[a]
            grads[a] = ga if so_far is None else so_far + ga
            so_far = grads[b]
            grads[b] = gb if so_far is None else so_far + gb
            continue
        elif len(prev) == 1:
            received = rule(g, node.data, prev[0].data)
        else:
            received = rule(g, node.data, *[c.data for c in prev])
        for child, contribution in zip(prev, received):
            if contribution is not None:
                so_far = grads[child]
                grads[child] = contribution if so_far is None else so_far + contribution
    return grads


def _vjp(node: Value, g: Any, create_graph: bool) -> Sequence[Any]:
    """What ``node``'s op sends to each of its operands, given d(root)/d(node) = g:
    ``backward(ctx, g)``, with ctx holding floats, or Values under ``create_graph``."""
    fn = node._fn
    assert fn is not None
    if create_graph:
        ctx = _values_ctx(node)
    elif fn is _HandWritten:
        ctx = node  # type: ignore[assignment]
    else:
        ctx = _floats_ctx(node)
    grads = fn.backward(ctx, g)
    if not fn._trusted:
        return _checked_gradients(fn, node, grads, create_graph)
    stored = node._ctx
    if type(stored) is Context and stored._positions is not None:
        return [grads[i] for i in stored._positions]
    return grads  # type: ignore[no-any-return]


# ---- the other ops ----------------------------------------------------------------------


class Sum(Function):
    """``a + b + c + ...`` as one node (``micrograd.sum``), added in order as builtin ``sum`` does."""

    name = "+"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        total = xs[0]
        for x in xs[1:]:  # ((x0 + x1) + x2) + ...: builtin sum's order
            total = total + x
        return total

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g,) * len(ctx.inputs)  # d(a + b + ...)/d(each) = 1


class Pow(Function):
    """a**b for two Values."""

    name = "**"
    _trusted = True

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


class Abs(Function):
    name = "abs"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return abs(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * sign(x),)  # sign(0) = 0, so abs'(0) = 0


class Exp(Function):
    name = "exp"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return exp(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * ctx.output,)  # (e**x)' = e**x


class Expm1(Function):
    name = "expm1"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return expm1(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * exp(x),)


class Log(Function):
    name = "log"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return log(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x),)  # log'(x) = 1/x


class Log1p(Function):
    name = "log1p"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return log1p(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x + 1.0),)


class Sqrt(Function):
    name = "sqrt"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return _sqrt(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (div(g, 2 * ctx.output),)  # sqrt'(x) = 1 / (2 sqrt(x)): inf at 0


class Tanh(Function):
    name = "tanh"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return _tanh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * (1 - ctx.output * ctx.output),)  # tanh' = 1 - tanh**2


class Sigmoid(Function):
    name = "sigmoid"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return _sigmoid(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * (1 - ctx.output) * ctx.output,)  # s' = s (1 - s)


class Sin(Function):
    name = "sin"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return _sin(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * _cos(x),)


class Cos(Function):
    name = "cos"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return _cos(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * -_sin(x),)


class LeakyReLU(Function):
    name = "leaky_relu"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any, slope: float) -> Any:
        return where(x > 0.0, x, x * slope)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, slope = ctx.inputs
        return where(x > 0.0, g, g * slope), None


class ELU(Function):
    name = "elu"
    _trusted = True

    @staticmethod
    def forward(ctx: Context, x: Any, alpha: float) -> Any:
        return where(x > 0.0, x, expm1(x) * alpha)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, alpha = ctx.inputs
        return where(x > 0.0, g, g * alpha * exp(x)), None


class Softplus(Function):
    name = "softplus"
    _trusted = True

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
    operands = tuple([v if type(v) is Value else _operand(v) for v in (start, *values)])
    return _node(Sum, Sum._float_forward(_ENGINE_CTX, *[v.data for v in operands]), operands, None)


def dot(ws: Iterable[Operand], xs: Iterable[Operand], start: Operand = 0.0) -> Value:
    """``start + w0*x0 + w1*x1 + ...``: the graph ``micrograd.sum(map(operator.mul, ws, xs), start)``
    builds (a ``*`` node per pair and ONE ``+`` node), bit for bit, built in one loop.  A
    neuron's ``w . x + b``.

    >>> import micrograd
    >>> y = micrograd.dot([Value(2.0), Value(3.0)], [4.0, 5.0], start=1.0)
    >>> y.data, y._op, [p._op for p in y._prev[1:]]
    (24.0, '+', ['*', '*'])
    """
    if _watched_threads and get_ident() in _watched_threads:  # no_grad or detect_anomaly: the plain way
        return sum([w * x for w, x in zip(ws, xs)], start)  # (this module's sum: micrograd.sum)
    first = start if type(start) is Value else _operand(start)
    operands: list[Value] = [first]
    numbers = [first.data]
    forward = Mul._float_forward
    for w, x in zip(ws, xs):  # speed trick 2, as _binary_method's: each product's node written out
        if type(w) is not Value:
            w = _operand(w)
        if type(x) is not Value:
            x = _operand(x)
        node: Value = _new_value(Value)
        node.data = product = forward(_ENGINE_CTX, w.data, x.data)
        node.grad = 0.0
        node._prev, node._op, node._fn, node._extra = (w, x), "*", Mul, None
        operands.append(node)
        numbers.append(product)
    return _node(Sum, Sum._float_forward(_ENGINE_CTX, *numbers), tuple(operands), None)


dot = inline_forward(dot, Mul.forward)  # speed trick 6


# ---- nodes built by hand, the lecture's way -----------------------------------------------


class _HandWritten(Function):
    """The op of a node whose ``_backward`` closure was assigned by hand (micrograd's lecture).

    Its ctx is the node itself.  The closure adds into its operands' ``.grad``;
    to hear what it sends each operand, those are set to 0.0 around the call
    (and the node's ``.grad`` to the gradient flowing in), then restored.
    """

    _trusted = True

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        node: Value = ctx  # type: ignore[assignment]
        children = list(dict.fromkeys(node._prev))  # a child listed twice receives both parts at once
        kept = [c.grad for c in children]
        kept_own = node.grad
        try:
            for c in children:
                c.grad = 0.0
            node.grad = g
            node._ctx()
            received = {c: c.grad for c in children}
        finally:
            for c, grad in zip(children, kept):
                c.grad = grad
            node.grad = kept_own
        return tuple(received.pop(c, None) for c in node._prev)


def _no_rule_error(node: Value) -> RuntimeError:
    return RuntimeError(
        f"cannot backpropagate through op {node._op or '?'!r}: this node was built by hand "
        f"(Value(data, children, {node._op!r})) without a derivative rule. Give it one the lecture's way "
        "(out._backward = a closure that adds into the children's .grad) or define the op as a "
        "micrograd.Function (forward and backward)"
    )


# ---- below the reading path: what makes it fast (and checks it) ---------------------------
#
# Speed trick 1: building a node is object.__new__ plus slot stores, skipping __init__'s checks.
#   What few nodes have (a label, hooks, what a user op kept) lives in one _Extra, None on most
#   nodes: six slots, 80 bytes a node, and less for the cyclic garbage collector to visit.
# Speed trick 2: the engine's own ops on Values (the methods made by _unary_method and
#   _binary_method, Value's other methods and micrograd.sum) skip _apply's sorting of Values
#   from numbers and give forward a shared, empty Context: the engine's forwards neither save
#   nor set anything, as backward reads ctx.inputs and ctx.output, which the node holds.
# Speed trick 3: a node keeps no Context unless it must.  An op that saved nothing, or only
#   its own inputs and output, keeps None or which ones it saved (a shared tuple of positions,
#   -1 for the output); backward then gets a Context made on the spot from the node.
# Speed trick 4: the backward pass pauses Python's cyclic garbage collector: the graph has no
#   reference cycles, yet on a large graph the collector would walk every node again and again.
# Speed trick 5: the float path runs the engine's own ops' backward rewritten, when the class
#   is made, as a function of floats (g, output, *inputs): the same source with ctx.inputs and
#   ctx.output turned into parameters, so no Context is filled per node (micrograd/specialise.py).
# Speed trick 6: the methods that build the engine's own ops' nodes (_binary_method's,
#   _unary_method's, micrograd.dot) are compiled again with the op's forward expression in
#   place of the call to forward (specialise.inline_forward): a Python call less per node.

_new_value = object.__new__
_new_ctx = object.__new__


class _Extra:
    """A node's ``_extra`` (speed trick 1): what its op kept for backward (``ctx``, speed
    trick 3; or a hand-written ``_backward`` closure), its label, its hooks, and where
    ``detect_anomaly`` saw it made."""

    __slots__ = ("ctx", "label", "hooks", "origin")

    def __init__(self, ctx: Any = None) -> None:
        self.ctx = ctx
        self.label = ""
        self.hooks: list[Callable[[Any], Any]] | None = None
        self.origin: str | None = None

    def copy(self) -> _Extra:
        """The same fields (the hooks the same list: a handle's remove() reaches both)."""
        out = _Extra(self.ctx)
        out.label, out.hooks, out.origin = self.label, self.hooks, self.origin
        return out


def _extra_of(node: Value) -> _Extra:
    extra = node._extra
    if extra is None:
        extra = node._extra = _Extra()
    return extra


def _hooks_of(node: Value) -> list[Callable[[Any], Any]] | None:
    extra = node._extra
    return None if extra is None else extra.hooks


_ALL_INPUTS: dict[int, tuple[bool, ...]] = {}  # needs_input_grad of an op whose inputs are all Values


def _all_inputs(n: int) -> tuple[bool, ...]:
    flags = _ALL_INPUTS.get(n)
    if flags is None:
        flags = _ALL_INPUTS[n] = (True,) * n
    return flags


_REFS: dict[tuple[int, ...], tuple[int, ...]] = {}  # one shared tuple per pattern of saved positions


class _EngineContext(Context):
    """The shared Context the engine's own forwards get (speed trick 2); they must not write to it."""

    __slots__ = ()

    def save_for_backward(self, *values: Any) -> None:
        raise AssertionError("the engine's own ops read ctx.inputs and ctx.output instead of saving")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AssertionError("the engine's own ops set nothing on ctx")


_ENGINE_CTX: Context = _new_ctx(_EngineContext)


def _leaf(data: float) -> Value:
    out: Value = _new_value(Value)
    out.data = data
    out.grad = 0.0
    out._prev, out._op, out._fn, out._extra = (), "", None, None
    return out


def _node(fn: type[Function], data: float, prev: tuple[Value, ...], kept: Any) -> Value:
    """The result node of an op; a plain leaf inside ``no_grad``."""
    out: Value = _new_value(Value)
    out.data = data
    out.grad = 0.0
    if _watched_threads and get_ident() in _watched_threads:
        return _watched(out, prev, fn, kept)
    out._prev, out._op, out._fn, out._extra = prev, fn.name, fn, None if kept is None else _Extra(kept)
    return out


def _apply(fn: type[Function], args: tuple[Any, ...]) -> Value:
    """``fn.apply(*args)``: forward on the inputs' numbers, then the result as a node."""
    xs: list[Any] = []
    flags: list[bool] = []
    prev: list[Value] = []
    for a in args:
        if isinstance(a, Value):
            prev.append(a)
            xs.append(a.data)
            flags.append(True)
        else:
            xs.append(a)
            flags.append(False)
    inputs = tuple(xs)
    ctx = Context(tuple(flags), inputs)
    out = fn.forward(ctx, *inputs)
    data = out if type(out) is float else _forward_result(fn, out)
    mixed = len(prev) < len(args)
    return _node(fn, data, tuple(prev), _kept(ctx, inputs, data, args if mixed else None))


def _kept(ctx: Context, xs: Sequence[Any], out: float, args: tuple[Any, ...] | None) -> Any:
    """What a node keeps of its op's Context (speed trick 3): None, the positions of the saved
    inputs (-1: the output) when that is all it saved, or else the Context itself, which then
    also remembers the arguments (``_args``) and where the Values among them are (``_positions``)."""
    saved = ctx.saved_tensors
    if args is None and not ctx.__dict__:  # all inputs are Values, and no attribute was set
        if not saved:
            return None
        refs = []
        for s in saved:
            if s is out:
                refs.append(-1)
                continue
            matches = [i for i, x in enumerate(xs) if s is x]
            if len(matches) != 1:
                # not an input, or ambiguous: two inputs can share one float object, and under
                # create_graph the position decides which Value the saved number stands for
                break
            refs.append(matches[0])
        else:
            key = tuple(refs)
            return _REFS.setdefault(key, key)
    ctx.output = out
    if args is not None:
        ctx._args = args
        ctx._positions = [i for i, a in enumerate(args) if isinstance(a, Value)]
    return ctx


def _apply_values(fn: type[Function], values: Sequence[Value]) -> Value:
    """Speed trick 2 for the engine's own n-ary op on Values (``micrograd.sum``)."""
    out = fn._float_forward(_ENGINE_CTX, *[v.data for v in values])
    return _node(fn, out, tuple(values), None)


def _floats_ctx(node: Value) -> Context:
    """The Context ``backward`` gets on the float path: the one the node kept, or one made
    on the spot from the node (speed trick 3)."""
    stored = node._ctx
    if type(stored) is Context:
        return stored
    prev = node._prev
    ctx: Context = _new_ctx(Context)
    ctx.inputs = tuple([c.data for c in prev])
    ctx.output = node.data
    ctx.needs_input_grad = _all_inputs(len(prev))
    ctx.saved_tensors = (
        () if stored is None else tuple([node.data if i < 0 else ctx.inputs[i] for i in stored])
    )
    return ctx


def _values_ctx(node: Value) -> Context:
    """The Context ``backward`` gets under ``create_graph``: inputs, output and what forward
    saved, as Values.  Saved inputs and output are the graph's own nodes; anything else forward
    computed is computed again, by running forward on the input Values."""
    fn, stored, prev = node._fn, node._ctx, node._prev
    if fn is _HandWritten:
        raise RuntimeError(
            f"cannot differentiate op {node._op or '?'!r} twice: its rule is a hand-written _backward "
            "closure, which adds floats into .grad and records no graph. Define the op as a "
            "micrograd.Function (forward and backward written with operators and micrograd.math) "
            "to use it with grad(create_graph=True), gradgradcheck and compile"
        )
    if type(stored) is not Context:
        ctx: Context = _new_ctx(Context)
        ctx.inputs = prev
        ctx.output = node
        ctx.needs_input_grad = _all_inputs(len(prev))
        ctx.saved_tensors = () if stored is None else tuple(node if i < 0 else prev[i] for i in stored)
        return ctx
    args = stored._args if stored._args is not None else prev
    ctx = Context(stored.needs_input_grad, tuple(args))
    assert fn is not None
    if stored.saved_tensors or stored.__dict__:  # forward computed something to keep: do it again on Values

        def refuse(what: str, kind: str) -> None:
            if kind == "convert":
                raise TypeError(
                    f"{fn.name}.forward turned a Value into a Python float ({what}) while running on "
                    "Values for create_graph, which would cut the graph: write forward with operators "
                    "and micrograd.math (e.g. micrograd.math.exp, not math.exp)"
                )

        with _hear_data_reads(refuse):
            fn.forward(ctx, *args)
    ctx.output = node
    return ctx


# ---- detect_anomaly and hooks (below the reading path; off, they cost one test per op) --------

_NO_GRAD = "(no_grad)"  # the _op of a result computed under no_grad: backward() on it explains
_CONSTANT = "(constant)"  # the _op of a leaf the engine made from a number operand (x * 2)
_HOOKS = [0]  # how many hooks are registered: while any are, the loop calls them
_ENGINE_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), pkg) + os.sep
    for pkg in ("micrograd", "nn")
)


class AnomalyError(RuntimeError):
    """``detect_anomaly()`` found a nan or inf; the message says where it was made, and so do
    the attributes: ``op``, ``operands`` and ``where`` (file:line) of the op whose backward
    made it, and ``first_nan_op``, ``first_nan_operands``, ``first_nan_where`` of the first op
    that made a nan in the forward pass (None when the forward pass made none)."""

    def __init__(self, message: str, node: Value, first_nan: Value | None) -> None:
        super().__init__(message)
        self.op, self.operands, self.where = node._op, tuple(p.data for p in node._prev), _where(node)
        self.first_nan_op: str | None = None
        self.first_nan_operands: tuple[float, ...] | None = None
        self.first_nan_where: str | None = None
        if first_nan is not None:
            self.first_nan_op = first_nan._op
            self.first_nan_operands = tuple(p.data for p in first_nan._prev)
            self.first_nan_where = _where(first_nan)


class RemovableHandle:
    """What ``Value.register_hook`` returns: ``remove()`` takes the hook off (also on leaving a ``with``)."""

    def __init__(self, node: Value, hook: Callable[[Any], Any]) -> None:
        self._node: Value | None = node
        self._hook = hook

    def remove(self) -> None:
        node, self._node = self._node, None
        if node is not None:
            hooks = _hooks_of(node)
            assert hooks is not None
            hooks.remove(self._hook)
            _HOOKS[0] -= 1

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _watched(node: Value, prev: tuple[Value, ...], fn: type[Function], kept: Any) -> Value:
    """The slow path of making a node, in a thread inside no_grad (a leaf, marked as made there)
    or detect_anomaly (the node remembers the file and line in your code that made it)."""
    if get_ident() in _no_grad_threads:
        node._prev, node._op, node._fn, node._extra = (), _NO_GRAD, None, None
        return node
    node._prev, node._op, node._fn, node._extra = prev, fn.name, fn, _Extra(kept)
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_ENGINE_DIRS):
        frame = frame.f_back
    node._extra.origin = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    return node


def _hooked(node: Value, g: Any, create_graph: bool) -> Any:
    """``node``'s gradient after its hooks (each may return a replacement)."""
    hooks = _hooks_of(node)
    for hook in list(hooks or ()):
        result = hook(g)
        if result is None:
            continue
        if create_graph and isinstance(result, Value):
            g = result
        else:
            g = _to_float(result, "a hook's replacement gradient")
            if create_graph:
                g = _leaf(g)
    return g


def _where(node: Value) -> str:
    extra = node._extra
    return "made outside detect_anomaly()" if extra is None or extra.origin is None else extra.origin


def _finite(x: Any) -> bool:
    return math.isfinite(x.data if isinstance(x, Value) else x)


def _check_finite(node: Value, g: Any, received: Sequence[Any], grads: dict[Value, Any]) -> None:
    """Raise ``AnomalyError`` if ``node``'s backward sent a nan or inf to an operand."""
    for k, c in enumerate(received):
        if c is None or _finite(c):
            continue
        value = c.data if isinstance(c, Value) else c
        operands = tuple(p.data for p in node._prev)
        message = (
            f"the backward pass made {value} at op {node._op!r} ({_where(node)}): given the upstream "
            f"gradient {g.data if isinstance(g, Value) else g}, its backward sent {value} to operand {k}; "
            f"its operands are {operands} and its result {node.data}"
        )
        first_nan = None
        for v in grads:  # forward order: the first op that made a nan from numbers that were not
            if v._prev and math.isnan(v.data) and not any(math.isnan(p.data) for p in v._prev):
                first_nan = v
                ops = tuple(p.data for p in v._prev)
                message = (
                    f"the forward pass made nan at op {v._op!r} ({_where(v)}) from operands {ops}; {message}"
                )
                break
        raise AnomalyError(message, node, first_nan)


def _forward_result(fn: type[Function], out: Any) -> float:
    if isinstance(out, Value):
        raise TypeError(
            f"{fn.name}.forward returned a Value; it receives the inputs' numbers and must return a "
            "number (compute with operators and micrograd.math, not with Values)"
        )
    if isinstance(out, (tuple, list)):
        raise TypeError(
            f"{fn.name}.forward returned {type(out).__name__} of {len(out)}; an op returns one number "
            "(a scalar engine: one Value per result; write one Function per output)"
        )
    return _to_float(out, f"{fn.name}.forward's result")


def _checked_gradients(fn: type[Function], node: Value, grads: Any, create_graph: bool) -> list[Any]:
    """A user op's gradients, one per Value operand, after checking their count and type."""
    stored = node._ctx
    n_args = len(stored.needs_input_grad) if type(stored) is Context else len(node._prev)
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != n_args:
        raise TypeError(
            f"{fn.name}.backward returned {len(grads)} gradient(s), but forward took {n_args} input(s): "
            "return one per input, None for an input that gets none"
        )
    positions = stored._positions if type(stored) is Context else None
    picked = grads if positions is None else [grads[i] for i in positions]
    result = []
    for k, g in enumerate(picked):
        if g is None or type(g) is float or (create_graph and isinstance(g, Value)):
            result.append(g)
        elif isinstance(g, Value):
            raise TypeError(
                f"{fn.name}.backward returned a Value for input {k} on the float path; "
                "write it with operators and micrograd.math on its arguments"
            )
        else:
            result.append(_to_float(g, f"{fn.name}.backward's gradient for input {k}"))
    return result


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Speed trick 4. Restored on exit, exceptions included; never switched on if it was off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _to_float(x: object, what: str = "Value()") -> float:
    """The float a number stands for; a clear TypeError for anything else."""
    if type(x) is float:
        return x
    if type(x) is int:  # (before the slower isinstance below)
        return float(x)
    if isinstance(x, numbers.Real):  # int, bool, Fraction, numpy floats and ints
        return float(x)
    if isinstance(x, Value):
        raise TypeError(
            f"{what} expects a real number, got a Value ({x!r}); use it directly, or x.detach() for a copy"
        )
    if type(x).__module__ == "numpy" and getattr(x, "ndim", None) == 0 and hasattr(x, "__float__"):
        return float(x)  # numpy's bool scalar, which is no numbers.Real
    if type(x).__module__ == "numpy" and getattr(x, "ndim", 0) > 0:
        raise TypeError(
            f"{what} expects a real number, got a numpy array of shape {x.shape}; "  # type: ignore[attr-defined]
            "Values are scalars: build one Value per element (or use micrograd.compile for arrays)"
        )
    raise TypeError(
        f"{what} expects a real number (int, float or numpy scalar), got {type(x).__name__}: {x!r}"
    )


def _operand(x: object) -> Value:
    """A Value as it is; a number as a constant leaf."""
    return x if isinstance(x, Value) else _constant(x)


def _constant(x: object) -> Value:
    """A number operand as a constant leaf (clear TypeError for anything else), marked as such."""
    out = _leaf(_to_float(x, "an operand of a Value op"))
    out._op = _CONSTANT
    return out


def _data(x: Operand) -> float:
    if isinstance(x, Value):
        return x.data
    return _to_float(x, "a comparison with a Value")


def _pow_name(n: float) -> str:
    return f"**{n:g}"
