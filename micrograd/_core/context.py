"""What an op's ``backward`` knows of its ``forward``: ``Context`` (PyTorch's ``ctx``), and the
contexts the engine hands its rules.

``backward(ctx, g)`` reads the op's inputs and result as ``ctx.inputs`` and
``ctx.output``: numbers in ``backward()``, Values under ``create_graph``.  A
node keeps a Context only when its forward saved something or took numbers
besides Values; for all other nodes the engine makes one on the spot from the
node (``PairContext`` for an op of two operands, one reused for a whole backward
pass; ``NodeContext`` for the others; ``values_context`` under ``create_graph``).
This module knows nodes by their slots and does not import the engine (the
engine imports it).

>>> ctx = Context((True,), (2.0,))
>>> ctx.save_for_backward(4.0)
>>> ctx.inputs, ctx.saved_tensors
((2.0,), (4.0,))
"""

from __future__ import annotations

from typing import Any

from . import grad_mode
from .coerce import is_value, refuse_floats


class Context:
    """What an op's ``backward`` knows of its ``forward`` (PyTorch's ``ctx``).

    ``ctx.inputs`` and ``ctx.output`` are the op's inputs and result: numbers
    in ``backward()``, Values under ``create_graph``.  ``save_for_backward(*xs)``
    keeps anything else forward computed (read it back as ``saved_tensors``);
    ``needs_input_grad[i]`` says whether input ``i`` is a Value; any other
    attribute you set (``ctx.slope = slope``) is kept as well.
    """

    __slots__ = ("inputs", "output", "saved_tensors", "needs_input_grad", "args", "__dict__")

    def __init__(self, needs_input_grad: tuple[bool, ...] = (), inputs: tuple[Any, ...] = ()) -> None:
        self.inputs = inputs
        self.output: Any = None  # known once forward has returned
        self.saved_tensors: tuple[Any, ...] = ()
        self.needs_input_grad = needs_input_grad
        self.args: tuple[Any, ...] = ()  # the arguments as given to apply: Values and numbers

    def save_for_backward(self, *values: Any) -> None:
        """Keep ``values`` for ``backward`` (read them back as ``ctx.saved_tensors``)."""
        self.saved_tensors = values


class ForwardContext(Context):
    """The one context the engine's own forwards get: it keeps nothing, so it refuses writes."""

    __slots__ = ()

    def save_for_backward(self, *values: Any) -> None:
        raise TypeError(
            "a built-in op's forward called ctx.save_for_backward, but Value's operators and methods "
            "run the built-in ops with a shared context that keeps nothing: read ctx.inputs and "
            "ctx.output in backward instead, or define your own Function"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        self.save_for_backward()


FORWARD_CTX: Context = object.__new__(ForwardContext)


class NodeContext(Context):
    """The Context the engine's own ops get on floats off ``PairContext``'s path (one operand, many,
    a label): the numbers of the node at hand, or, for a node that kept its forward's Context (it
    took numbers besides Values, such as ``x ** 2``'s exponent, or saved something), what that
    Context holds.  Pointed at its node (``ctx.node = node``); the numbers are read only by the
    rules that ask for them."""

    __slots__ = ("node",)

    def __init__(self, node: Any = None) -> None:
        self.node = node

    @property
    def inputs(self) -> tuple[Any, ...]:  # type: ignore[override]
        node = self.node
        if node._extra is not None and isinstance(node._extra.ctx, Context):
            return node._extra.ctx.inputs
        prev = node._prev
        n = len(prev)  # one or two operands written out: a comprehension costs three times as much
        if n == 2:
            return prev[0].data, prev[1].data
        return (prev[0].data,) if n == 1 else tuple([c.data for c in prev])

    @property
    def output(self) -> Any:
        return self.node.data

    @property
    def saved_tensors(self) -> tuple[Any, ...]:  # type: ignore[override]
        kept = self.kept()
        return () if kept is None else kept.saved_tensors

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:  # type: ignore[override]
        kept = self.kept()
        return (True,) * len(self.node._prev) if kept is None else kept.needs_input_grad

    def kept(self) -> Context | None:
        """The Context the node's forward kept, if it kept one."""
        extra = self.node._extra
        return extra.ctx if extra is not None and isinstance(extra.ctx, Context) else None


class PairContext(Context):
    """The Context the engine's own ops of two operands get on floats in ``backward()``'s loop, when
    the node kept nothing: the loop sets ``inputs`` and ``output`` for each node in turn (one serves a
    whole pass).  Set rather than read on demand: a property read costs the loop 4% more instructions.

    >>> ctx = PairContext.__new__(PairContext)
    >>> ctx.inputs, ctx.output = (2.0, 3.0), 6.0
    >>> ctx.inputs, ctx.output, ctx.saved_tensors, ctx.needs_input_grad
    ((2.0, 3.0), 6.0, (), (True, True))
    """

    __slots__ = ()
    saved_tensors = ()  # (nothing kept, both operands Values)
    needs_input_grad = (True, True)


def args_of(node: Any) -> tuple[Any, ...]:
    """What ``node``'s op was applied to: its operands, with any numbers given besides them."""
    kept = None if node._extra is None else node._extra.ctx
    return kept.args if isinstance(kept, Context) else node._prev


def values_context(node: Any, kept: Context | None) -> Context:
    """The Context ``backward`` gets under ``create_graph``: inputs, output and what forward saved,
    as Values.  What forward saved is computed again, by running forward on the input Values."""
    args = args_of(node)
    ctx = Context(tuple([is_value(a) for a in args]), tuple(args))
    if kept is not None and (kept.saved_tensors or kept.__dict__):
        fn = node._fn
        assert fn is not None
        with grad_mode.hear_data_reads(refuse_floats(fn)):  # float(v) in forward would cut the graph
            fn.forward(ctx, *args)
    ctx.output = node
    return ctx
