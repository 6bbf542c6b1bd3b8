"""Backpropagation on scalars: ``Function``, the lecture's ops, ``Value`` and ``backward()``.

A ``Value`` wraps one number, ``data``, and remembers the op that made it and its operands
(``_prev``): computing with Values records a graph.  ``backward()`` walks that graph from the
output back to the inputs, applying the chain rule at every op: a node's ``grad``,
d(output)/d(node), sums over the ops that used the node d(output)/d(op's result) times the
op's local derivative d(op's result)/d(node).

Every op is a ``Function``: ``forward`` computes the result from the operands' numbers, beside
``backward``, which turns the result's gradient into one per operand (PyTorch's
``torch.autograd.Function``).  That one definition runs everywhere: on floats in
``backward()``, on Values under ``create_graph``, on arrays in ``micrograd.compile``, and for
``explain``, the pictures and forward mode.  Patch a rule (``Mul.backward = my_rule``) and every
graph built afterwards uses it.

Reading order: the chain-rule loop ``backward()`` runs, first; ``Function`` (its ``ctx``:
micrograd/_core/context.py); the lecture's ops (``+``, ``*``, ``**``, ``tanh``, ``relu``); the graph
walk the loop follows; ``Value``.  The rest of the catalogue (``-``, ``/``, ``exp``, ...) is
micrograd/ops/basic.py.  Last, below the reading path: how nodes are made, hooks and ``detect_anomaly``.

>>> x = Value(-4.0)
>>> y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
>>> y.backward()
>>> round(x.grad, 4)
24.4706
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from sys import getrecursionlimit
from threading import get_ident
from types import CellType
from typing import TYPE_CHECKING, Any, ClassVar, Union

from ._core import grad_mode, hooks
from ._core.bookkeeping import accumulate_grads, collector_paused
from ._core.coerce import checked_gradients, forward_result, to_float
from ._core.context import FORWARD_CTX, Context, NodeContext, PairContext, args_of, values_context
from ._core.grad_mode import watched_threads
from ._core.nodes import (
    CONSTANT_EXTRA,
    DEEPEST_RECURSION,
    NO_GRAD,
    OPERANDS,
    Extra,
    deep_topological_order,
    extra_of,
    hooks_of,
    no_rule_error,
    run_closure,
    watched,
    where_made,
)
from .math.generic import pow, tanh, where  # noqa: A004 - math that works on floats, Values and arrays alike

Number = int | float
Operand = Union["Value", int, float]
Grads = dict["Value", Any]  # d(root)/d(node) for each node (None: no gradient reached it)
Observer = Callable[["Value", Any, Sequence[Any] | None, Grads], None]  # hears each step

if TYPE_CHECKING:  # the methods ops/ attaches, for the type checker (scripts/gen_value_methods.py)
    from ._core.value_methods import AttachedMethods
else:
    AttachedMethods = object


# ---- backward(): the chain-rule loop -----------------------------------------------------------


def backpropagate(
    seeds: Grads, create_graph: bool = False, into_grad: bool = False, observe: Observer | None = None
) -> Grads:
    """d(root)/d(node) for each node behind ``seeds`` (None: unreached), into ``.grad`` if ``into_grad``."""
    if watched_pass(create_graph, observe):  # hooks, detect_anomaly, observe, create_graph: below
        return backpropagate_watched(seeds, create_graph, into_grad, observe)
    ctx = PairContext.__new__(PairContext)  # what the built-in rules read: the node's numbers, set below
    with collector_paused():  # (the graph has no cycles: Python's collector would only slow the loop)
        grads = topological_order(seeds)  # every node behind the outputs, each after its operands
        grads.update(seeds)
        for node, g in reversed(grads.items()):  # a node comes after every node computed from it
            if g is None:  # (else g is d(root)/d(node), complete: every op that used the node added to it)
                continue  # no path from the outputs carries a gradient here
            backward = pair_ops.get(node._fn)  # the op's rule, if the loop runs it itself
            if node._extra is not None or backward is None:  # a leaf, a user's op, one operand, many...
                watched_step(node, g, grads)  # ...a step apart, adding into grads
                continue
            a, b = node._a, node._b  # an op of ours of two operands, as most are, on its numbers
            ctx.inputs, ctx.output = (a.data, b.data), node.data  # (set: a property costs 4% more)
            ga, gb = backward(ctx, g)  # the op's rule: what each operand gets through this op
            if ga is not None:  # each operand adds what it received: a node used twice gets the sum
                so_far = grads[a]
                grads[a] = ga if so_far is None else so_far + ga
            if gb is not None:
                so_far = grads[b]
                grads[b] = gb if so_far is None else so_far + gb
    if into_grad:
        accumulate_grads(grads)  # each node.grad += its g, zeros' signs as PyTorch: _core/bookkeeping.py
    return grads


def add_received(grads: Grads, operands: Sequence[Value], received: Sequence[Any]) -> None:
    """Each operand adds what it received (None: nothing) to its gradient so far, in ``grads``."""
    for child, part in zip(operands, received):
        if part is not None:
            so_far = grads[child]
            grads[child] = part if so_far is None else so_far + part


# ---- what an op is ---------------------------------------------------------------------
# An op's rules get a ``ctx`` (micrograd/_core/context.py): ``ctx.inputs`` and ``ctx.output`` are the op's
# inputs and result, numbers in backward() and Values under create_graph; ``ctx.save_for_backward``
# keeps anything else forward computed, read back as ``ctx.saved_tensors``.


class FunctionType(type):
    """The type of every op: a rule assigned after the class was made (``Mul.backward = rule``)
    takes effect at once, and the op's gradients are then checked as a user's op's are."""

    builtin: bool  # (Function's: whether the op's rules are ours as written)

    def __setattr__(cls, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        cls._rules_changed(name)

    def __delattr__(cls, name: str) -> None:
        super().__delattr__(name)  # (del Mul.backward: the op now has the rule it inherits)
        cls._rules_changed(name)

    def _rules_changed(cls, name: str) -> None:
        """After ``name`` was set or deleted: whether the op is built-in, the rule the chain-rule loop
        runs for it, and the forward that Value's methods made from it call."""
        if name in ("forward", "backward"):  # built-in again only once both rules are put back
            rules = (getattr(cls, "forward"), getattr(cls, "backward"))  # noqa: B009 - the class's own
            super().__setattr__("builtin", cls.__dict__.get("builtin_rules") == rules)
        if name in ("forward", "backward", "builtin"):  # (the loop asks the dict: a leaf's None is in none)
            if cls.builtin and takes_two(getattr(cls, "forward")):  # noqa: B009 - as for rules
                pair_ops[cls] = getattr(cls, "backward")  # noqa: B009 - as for rules
            else:
                pair_ops.pop(cls, None)
            for op in pair_ops:  # the ops that inherit the rule (class MyMul(Mul)) read it anew
                if issubclass(op, cls):  # type: ignore[arg-type]  # (no key is None: the loop asks for it)
                    pair_ops[op] = getattr(op, "backward")  # noqa: B009 - as for rules
        if name == "forward":  # Value's methods made from the op (or one that inherits it) call it next
            for op, cells in forward_cells.items():
                if issubclass(op, cls):
                    for cell in cells:
                        cell.cell_contents = getattr(op, "forward")  # noqa: B009 - as for rules


# The built-in ops (``builtin`` True: their rules run unchecked) whose forward takes two operands, so
# that each of their nodes that kept nothing has two: the chain-rule loop runs them itself.  Each
# with its backward rule: asking the dict once a node costs less than the set, then ``fn.backward``.
pair_ops: dict[FunctionType | None, Callable[..., Any]] = {}  # (None, a leaf's op, never in it)


def takes_two(forward: Callable[..., Any]) -> bool:
    """Whether ``forward`` is ``(ctx, a, b)``: two operands, no more, no fewer, no defaults."""
    code = getattr(forward, "__code__", None)
    if code is None or code.co_flags & (VARARGS | VARKEYWORDS) or code.co_kwonlyargcount:
        return False
    return code.co_argcount == 3 and not getattr(forward, "__defaults__", None)


VARARGS, VARKEYWORDS = 0x04, 0x08  # a code's flags for *args and **kwargs (inspect.CO_VARARGS, ...)


class Function(metaclass=FunctionType):
    """An op: ``forward`` computes its result, ``backward`` its chain rule, written side by side once.

    ``apply`` accepts Values and plain numbers; numbers are parameters of the
    op (passed to ``forward`` as they are) and ``backward`` returns ``None``
    for them.  A scalar engine's simplification: every input and the result is
    one number, so there is one ``grad_output`` and ``forward`` returns one
    number.  Written with operators and ``micrograd.math`` (``where`` instead of
    an ``if`` on data), the same two methods run on floats, on Values and on
    numpy arrays.  ``name`` is what pictures and ``explain`` call the op.

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
    # The engine's own ops, as written in this package: their backward returns one float per
    # operand, unchecked; a user's op (or a patched one) has its gradients checked.
    builtin: ClassVar[bool] = False
    builtin_rules: ClassVar[tuple[Any, Any] | None] = None  # a built-in op's rules as written

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__
        cls.builtin = bool(cls.__dict__.get("builtin", False))
        if cls.builtin:
            cls.builtin_rules = (cls.forward, cls.backward)

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
        return apply(cls, args)


# ---- the lecture's ops ---------------------------------------------------------------------


class Add(Function):
    name = "+"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return g, g  # d(a+b)/da = d(a+b)/db = 1: the gradient flows to both unchanged


class Mul(Function):
    name = "*"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        return g * b, g * a  # d(a*b)/da = b, d(a*b)/db = a


class PowConst(Function):
    """x**n for a number n (micrograd's ``**``); pictures call it ``**n``."""

    name = "**"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, n: float) -> Any:
        return pow(x, n)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, n = ctx.inputs
        # d(x**n)/dx = n * x**(n-1); exactly 0 for n == 0, as in PyTorch (even at x == 0)
        return (0.0 if n == 0.0 else g * (n * pow(x, n - 1))), None


class Tanh(Function):
    name = "tanh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return tanh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        t = ctx.output
        return (g * (1 - t * t),)  # tanh' = 1 - tanh**2


class ReLU(Function):
    name = "ReLU"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return where(x < 0.0, 0.0, x)  # max(0, x); nan and -0.0 pass through, as in PyTorch

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (where(ctx.output <= 0.0, 0.0, g),)  # gated by the output, as PyTorch: relu'(0) = 0


# ---- the graph walk the chain-rule loop follows --------------------------------------------


def topological_order(roots: Iterable[Value]) -> dict[Value, Any]:
    """Every node reachable from ``roots``, each after its operands, as the keys of a dict of Nones
    (``backpropagate`` fills in the gradients): micrograd's ``build_topo``, depth first.  A graph deeper
    than Python's recursion limit (a chain of a million ``+``) takes the same walk without recursion."""
    roots = tuple(roots)
    if getrecursionlimit() > DEEPEST_RECURSION:  # (a limit raised so high the C stack may not hold it)
        return deep_topological_order(roots)
    order: dict[Value, Any] = {}  # insertion-ordered, and the visited set
    try:
        for root in roots:
            if root not in order:
                visit(root, order)
    except RecursionError:  # (recursing is faster: an MLP's 41,000 nodes in 9.3 ms, against 13.7)
        return deep_topological_order(roots)
    return order


def visit(node: Value, order: dict[Value, Any]) -> None:
    """Put ``node`` into ``order`` after every operand behind it (``topological_order``'s step)."""
    for child in (node._a, node._b) if node._b is not OPERANDS else node._a:  # (see Value's slots)
        if child not in order:  # (a node being visited can't recur: the graph is acyclic)
            if child._b is not OPERANDS or child._a:
                visit(child, order)
            else:  # a leaf, put in without a call (a GPT's graph: half its nodes, its weights)
                order[child] = None
    order[node] = None


def vjp(node: Value, g: Any, create_graph: bool = False) -> Sequence[Any]:
    """What ``node``'s op sends to each of its operands, given d(root)/d(node) = ``g``:
    its ``backward(ctx, g)``, with ctx holding numbers, or Values under ``create_graph``.
    Forward mode, ``explain`` and the pictures ask it with ``g = 1``: the local derivatives."""
    fn, extra = node._fn, node._extra
    assert fn is not None
    if fn is HandWritten:  # what the lecture's closure adds into each operand's .grad
        received: dict[Value, Any] = {}
        run_closure(node, g, received, create_graph)
        return [received.pop(c, None) for c in node._prev]  # (an operand listed twice: once)
    kept = None if extra is None else extra.ctx
    if create_graph:
        grads = fn.backward(values_context(node, kept), g)
    elif kept is not None:
        grads = fn.backward(kept, g)  # forward saved something, or took numbers besides Values
    else:
        ctx = NodeContext(node)  # the inputs' and output's numbers
        grads = fn.backward(ctx, g)
    if fn.builtin and kept is None:
        return grads  # type: ignore[no-any-return]
    return checked_gradients(fn, args_of(node), grads, create_graph)


# ---- Value's methods: an op's node made straight from its forward -------------------------


def binary_method(fn: type[Function], reflected: bool = False) -> Callable[[Value, Operand], Value]:
    """``self <op> other`` as ``fn.apply(self, other)`` (``other <op> self`` if ``reflected``),
    a number operand becoming a constant leaf.  The node is made here rather than through
    ``apply``: these are the hottest lines of the engine (see "Making nodes" below)."""
    forward = fn.forward  # (read once: a class attribute costs a lookup a node, 1.4% of microgpt's
    # step; FunctionType sets it again if the op's forward is patched)

    def method(self: Value, other: Operand) -> Value:
        if type(other) is not Value:
            other = operand(other)
        if reflected:
            self, other = other, self
        node: Value = new_value(Value)
        data = forward(FORWARD_CTX, self.data, other.data)
        node.data = data if type(data) is float else forward_result(fn, data)  # (a clear error, or a float)
        node.grad = 0.0
        if watched_threads and get_ident() in watched_threads:
            return watched(node, (self, other), fn, None)  # inside no_grad or detect_anomaly
        node._a = self  # (the operands in two slots, no tuple: see Value's slots)
        node._b = other
        node._fn = fn
        node._extra = None
        return node

    return forward_kept_current(method, fn)


def unary_method(fn: type[Function], doc: str) -> Callable[[Value], Value]:
    """``self.<op>()`` as ``fn.apply(self)``, made as ``binary_method`` makes its nodes."""
    forward = fn.forward

    def method(self: Value) -> Value:
        node: Value = new_value(Value)
        data = forward(FORWARD_CTX, self.data)
        node.data = data if type(data) is float else forward_result(fn, data)
        node.grad = 0.0
        if watched_threads and get_ident() in watched_threads:
            return watched(node, (self,), fn, None)
        node._a = (self,)
        node._b = OPERANDS
        node._fn = fn
        node._extra = None
        return node

    method.__doc__ = doc
    return forward_kept_current(method, fn)


def forward_kept_current(method: Callable[..., Value], fn: type[Function]) -> Callable[..., Value]:
    """``method``, its ``forward`` set again whenever ``fn``'s is (``Mul.forward = f``: FunctionType)."""
    cell = method.__closure__[method.__code__.co_freevars.index("forward")]  # type: ignore[index]
    forward_cells.setdefault(fn, []).append(cell)
    return method


forward_cells: dict[type[Function], list[CellType]] = {}  # the methods' ``forward``s, by op


# ---- Value -----------------------------------------------------------------------------


class Value(AttachedMethods):
    """A scalar node of the computation graph.

    >>> a = Value(2.0, label="a")
    >>> b = a * a + 1
    >>> b
    Value(data=5.0, grad=0.0)
    >>> b.backward()
    >>> a.grad
    4.0
    """

    # The operands are two slots, not a tuple: a node of two operands (most are) is then one object
    # for Python's cyclic collector to track, not two: it runs half as often while a graph is built
    # and its time falls to a third (a step of microgpt's script, three in turns: the collector took
    # 13-15 ms of 76-101 ms, against 43-48 ms of 120-123 ms with a tuple).
    __slots__ = ("data", "grad", "_a", "_b", "_fn", "_extra")

    data: float
    grad: float
    _a: Any  # the first operand; or, when _b is OPERANDS, all of them as a tuple (a leaf's is empty)
    _b: Any  # the second operand, or OPERANDS
    _fn: type[Function] | None  # the op (None for a leaf)
    _extra: Extra | None  # what few nodes have: what the op kept for backward, a label, hooks

    def __init__(self, data: Number, _children: Iterable[Value] = (), _op: str = "", label: str = "") -> None:
        self.data = to_float(data)
        self.grad = 0.0
        self._prev = children = tuple(_children)
        for child in children:
            if not isinstance(child, Value):
                raise TypeError(f"Value children must be Values, got {type(child).__name__}: {child!r}")
        if not isinstance(_op, str):
            raise TypeError(f"_op must be a str, got {type(_op).__name__}: {_op!r}")
        self._fn = None  # a node built by hand gets its rule as a `_backward` closure (the lecture's way)
        self._extra = None
        self._op = _op
        self.label = label

    __add__ = binary_method(Add)  # self + other, that is Add.apply(self, other)
    __radd__ = binary_method(Add, reflected=True)  # other + self; sum() starts with 0 + v
    __mul__ = binary_method(Mul)  # self * other
    __rmul__ = binary_method(Mul, reflected=True)

    def __pow__(self, other: Operand) -> Value:
        if isinstance(other, Value):
            return Value.pow(self, other)  # Value ** Value: micrograd/ops/basic.py
        exponent = to_float(other, "the exponent of **")
        out = PowConst.apply(self, exponent)
        if out._fn is PowConst:
            out._op = f"**{exponent:g}"
        return out

    tanh = unary_method(Tanh, "Hyperbolic tangent.")
    relu = unary_method(ReLU, "max(0, x); relu'(0) = 0.")

    def backward(self, gradient: Number = 1.0) -> None:
        """Backpropagate from this node: add d(self)/d(node) * gradient into every node's ``.grad``.
        Gradients accumulate, as in PyTorch (reset them between steps: ``model.zero_grad()``);
        a ``.grad`` of 0.0 is no gradient yet, so a first gradient of -0.0 keeps its sign.

        >>> x = Value(3.0)
        >>> (x * x).backward()
        >>> x.grad
        6.0
        """
        if self._fn is None and self._op == NO_GRAD:  # (a result made under no_grad is a leaf)
            raise RuntimeError(
                "backward() on a Value computed under no_grad(): no graph was recorded, so no gradient "
                "can reach its inputs. Compute it outside the no_grad() block (or inside enable_grad())"
            )
        seed = gradient if type(gradient) is float else to_float(gradient, "backward()'s gradient")
        backpropagate({self: seed}, into_grad=True)

    @property
    def _backward(self) -> Callable[[], None]:
        """One chain-rule step, as micrograd's lecture calls it by hand: add ``self.grad`` times the
        local derivatives into the operands' ``.grad``.  Assign a closure to give a hand-built node
        its rule, the lecture's way (``out._backward = _backward``)."""
        if self._fn is HandWritten:
            closure: Callable[[], None] = self._extra.ctx  # type: ignore[union-attr]
            return closure
        return self._chain_step

    @_backward.setter
    def _backward(self, closure: Callable[[], None]) -> None:
        if not callable(closure):
            raise TypeError(f"_backward must be a function of no arguments, got {type(closure).__name__}")
        self._fn = HandWritten
        extra_of(self).ctx = closure

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The operands, in order (micrograd's ``_prev``; a leaf has none)."""
        b = self._b
        return self._a if b is OPERANDS else (self._a, b)

    @_prev.setter
    def _prev(self, operands: Iterable[Value]) -> None:
        operands = tuple(operands)
        if len(operands) == 2:
            self._a, self._b = operands
        else:
            self._a, self._b = operands, OPERANDS

    def _chain_step(self) -> None:
        if self._fn is not None:
            for child, g in zip(self._prev, vjp(self, self.grad)):
                if g is not None:
                    child.grad += g

    @property
    def label(self) -> str:
        """A name for pictures and messages ("" for none)."""
        return "" if self._extra is None else self._extra.label

    @label.setter
    def label(self, label: str) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}: {label!r}")
        if label or self._extra is not None:
            extra_of(self).label = label

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{extra})"

    def __copy__(self) -> Value:
        """``copy.copy(v)``: the same fields, with a label of its own."""
        out: Value = new_value(type(self))
        out.data, out.grad, out._a, out._b, out._fn = self.data, self.grad, self._a, self._b, self._fn
        out._extra = None if self._extra is None else self._extra.copy()  # (its label, its op's name)
        return out

    def detach(self) -> Value:
        """A new leaf with the same data, cut off from the graph."""
        return leaf(self.data)

    def register_hook(self, hook: Callable[[Any], Any]) -> hooks.RemovableHandle:
        """Call ``hook(grad)`` when this node's gradient is complete in ``backward()`` or ``grad()``;
        a number it returns replaces the gradient (PyTorch's ``Tensor.register_hook``; example in
        micrograd/_core/hooks.py).  Eager only: ``compile`` refuses a graph with hooks."""
        if not callable(hook):
            raise TypeError(f"register_hook needs a function of the gradient, got {type(hook).__name__}")
        extra = extra_of(self)
        extra.hooks = [] if extra.hooks is None else extra.hooks  # (a copy.copy of the node shares it)
        return hooks.RemovableHandle(extra.hooks, hook)

    # numpy: `array * v` must not build an object array of Values; numpy defers to Value's
    # reflected operators instead, which reject arrays with a clear error.
    __array_ufunc__ = None

    @property
    def _op(self) -> str:
        """The op's name, for printing: its op's ``name`` (derived, not stored: one store and one slot
        less a node, 1.2% of microgpt's step), "" for a leaf, or the name it was given (a hand-built
        node's, ``**2``, ``"(constant)"``, ``"(no_grad)"``), kept in its Extra."""
        extra, fn = self._extra, self._fn
        if extra is not None and extra.op is not None:
            return extra.op
        return "" if fn is None else fn.name

    @_op.setter
    def _op(self, name: str) -> None:
        if self._extra is not None or name != ("" if self._fn is None else self._fn.name):
            extra_of(self).op = name

    # For readers of graphs (the pictures, your own tools); micrograd's code reads _op and _prev.
    @property
    def op(self) -> str:
        """The op that made this node (``"*"``, ``"tanh"``); for a leaf ``""``, or in parentheses
        how the engine made it: ``"(constant)"`` (a number operand), ``"(no_grad)"``."""
        return self._op

    @property
    def children(self) -> tuple[Value, ...]:
        """The operands this node was computed from, in order (a leaf has none)."""
        return self._prev


# ---- nodes built by hand, the lecture's way -----------------------------------------------
class HandWritten(Function):
    """The op of a node given a ``_backward`` closure by hand: the watched path runs the closure."""


# ---- making nodes (below the reading path: the fast way, and the checks) ------------------------
#
# A node is object.__new__ plus slot stores, skipping __init__'s checks.  What few nodes have (a
# label, hooks, what a user's op kept) lives in one Extra, None on most nodes: six slots, 80 bytes a
# node and no tuple beside it for two operands, so less for the cyclic garbage collector to visit.
# The engine's own forwards get one shared context (they read nothing from it and keep nothing in
# it), and their backward a PairContext the loop fills with the node's numbers (or a NodeContext
# that reads them from the node): no Context is stored per node.

new_value = object.__new__


def leaf(data: float) -> Value:
    out: Value = new_value(Value)
    out.data = data
    out.grad = 0.0
    out._a = ()
    out._b = OPERANDS
    out._fn = None
    out._extra = None
    return out


def node(fn: type[Function], data: float, prev: tuple[Value, ...], kept: Any = None) -> Value:
    """The result node of an op (a plain leaf inside ``no_grad``)."""
    out: Value = new_value(Value)
    out.data = data
    out.grad = 0.0
    if watched_threads and get_ident() in watched_threads:
        return watched(out, prev, fn, kept)
    out._prev, out._fn, out._extra = prev, fn, None if kept is None else Extra(kept)
    return out


def apply(fn: type[Function], args: tuple[Any, ...]) -> Value:
    """``fn.apply(*args)``: forward on the inputs' numbers, then the result as a node."""
    prev = tuple([a for a in args if isinstance(a, Value)])
    inputs = tuple([a.data if isinstance(a, Value) else a for a in args])
    ctx = Context(tuple([isinstance(a, Value) for a in args]), inputs)
    out = fn.forward(ctx, *inputs)
    data = out if type(out) is float else forward_result(fn, out)
    if ctx.saved_tensors or ctx.__dict__ or len(prev) < len(args):
        ctx.output, ctx.args = data, args  # the node keeps its Context: backward reads it
        return node(fn, data, prev, ctx)
    return node(fn, data, prev)


def operand(x: object) -> Value:
    """A Value as it is; a number as a constant leaf, marked as such."""
    if isinstance(x, Value):
        return x
    out = leaf(to_float(x, "an operand of a Value op"))
    out._extra = CONSTANT_EXTRA  # (shared: extra_of gives it its own before any write)
    return out


# ---- backward() when something is watched: hooks, observe, create_graph, closures, users' ops ----


def watched_pass(create_graph: bool, observe: Observer | None) -> bool:
    """Whether a backward pass takes the watched path: under ``create_graph``, with an observer
    (``explain``, the pictures), while a hook is registered on any node or ``detect_anomaly`` is on."""
    return create_graph or observe is not None or bool(hooks.REGISTERED[0]) or bool(grad_mode.anomaly_threads)


def backpropagate_watched(
    seeds: dict[Value, Any], create_graph: bool, into_grad: bool, observe: Observer | None
) -> dict[Value, Any]:
    """``backpropagate`` when something is watched: hooks may replace a node's gradient, ``observe``
    hears every step (in ``detect_anomaly``, checks every gradient), ``create_graph`` runs Values."""
    if observe is None and get_ident() in grad_mode.anomaly_threads:
        observe = partial(grad_mode.check_finite, where=where_made)
    with collector_paused():
        grads = topological_order(seeds)
        grads.update(seeds)
        for node in reversed(grads):
            g = grads[node]
            if g is None:
                continue  # no path from the outputs carries a gradient here
            if hooks.REGISTERED[0]:  # its hooks may replace the gradient
                g = grads[node] = hooks.run(hooks_of(node), g, create_graph, leaf)
            watched_step(node, g, grads, create_graph, observe)
    if into_grad:  # each gradient, complete (a hook's replacement included), into .grad
        accumulate_grads(grads)
    return grads


def watched_step(
    node: Value, g: Any, grads: dict[Value, Any], create_graph: bool = False, observe: Observer | None = None
) -> None:
    """An op's step off the plain path, what each operand receives added into ``grads``: a leaf
    (nothing: one call, as a GPT's thousands of leaves cost the loop), a closure, no rule, a
    user's op, Values."""
    fn = node._fn
    operands = node._a if node._b is OPERANDS else (node._a, node._b)  # (node._prev, without a call)
    if fn is None:
        if not operands:
            return  # a leaf: nothing behind it
        if observe is None:
            raise no_rule_error(node)
        observe(node, g, None, grads)  # built by hand without a rule: gradients stop here
        return
    if fn is HandWritten:
        if observe is not None:
            observe(node, g, vjp(node, g), grads)  # (what the closure adds, asked apart)
        run_closure(node, g, grads, create_graph)  # the lecture's way: it writes the operands' .grad
        return  # (it has added into grads itself)
    if fn.builtin and not create_graph:  # an op of ours, on its numbers: they are read from the node
        ctx = NodeContext.__new__(NodeContext)  # (made without a call: this runs for every tanh)
        ctx.node = node
        received: Sequence[Any] = fn.backward(ctx, g)
    else:
        received = vjp(node, g, create_graph)
    if observe is not None:
        observe(node, g, received, grads)
    add_received(grads, operands, received)
