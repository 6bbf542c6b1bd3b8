"""What a node keeps besides its number and operands, and the slow paths of making and walking one.

Most nodes are six slots (``data``, ``grad``, the operands ``_a`` and ``_b``, ``_fn``,
``_extra``) with ``_extra`` None, their ``_op`` their op's name.  The few that have more (a
label, hooks, what a user's op kept for backward, a hand-written ``_backward``
closure, where ``detect_anomaly`` saw them made, an op name of their own) keep it
in one ``Extra``.  Here too: running a lecture-style
closure as micrograd 0.1.0 does, and marking nodes made under ``no_grad`` or
``detect_anomaly``.  This module knows nodes by their slots and does not import
the engine (the engine imports it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from threading import get_ident
from typing import Any, TypeVar

from . import grad_mode

# A node's operands are two slots, read together as ``_prev``: a node of two operands (most are) keeps
# them in ``_a`` and ``_b``, any other keeps them as a tuple in ``_a`` (a leaf's is empty), ``_b`` OPERANDS.
OPERANDS = None
NO_GRAD = "(no_grad)"  # the _op of a result computed under no_grad: backward() on it explains
CONSTANT = "(constant)"  # the _op of a leaf the engine made from a number operand (x * 2)
N = TypeVar("N")  # a node (a Value)
ENGINE_DIRS = tuple(  # frames in these folders are the engine's, not the user's line
    os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), pkg) + os.sep
    for pkg in ("micrograd", "nn")  # (this file is micrograd/_core/nodes.py)
)


class Extra:
    """A node's ``_extra``: what its op kept for backward (``ctx``: its Context, or a hand-written
    ``_backward`` closure), its label, its hooks, where ``detect_anomaly`` saw it made, and an
    ``op`` name other than its op's own (None: its op's)."""

    __slots__ = ("ctx", "label", "hooks", "origin", "op")

    def __init__(self, ctx: Any = None, op: str | None = None) -> None:
        self.ctx = ctx
        self.label = ""
        self.hooks: list[Callable[[Any], Any]] | None = None
        self.origin: str | None = None
        self.op = op

    def copy(self) -> Extra:
        out = Extra(self.ctx)
        out.label, out.hooks, out.origin, out.op = self.label, self.hooks, self.origin, self.op
        return out


# Every constant leaf (the 2 in ``x * 2``, the 0 ``sum()`` starts from) shares this one Extra, which
# only names its op: making one a constant cost microgpt's training step 0.8% more instructions.
CONSTANT_EXTRA = Extra(op=CONSTANT)


def extra_of(node: Any) -> Extra:
    """``node``'s own Extra, to write to: made on first use (a constant's shared one copied first)."""
    extra = node._extra
    if extra is None:
        extra = node._extra = Extra()
    elif extra is CONSTANT_EXTRA:  # (a label or a hook on one constant must not reach the others)
        extra = node._extra = extra.copy()
    return extra  # type: ignore[no-any-return]


def hooks_of(node: Any) -> list[Callable[[Any], Any]]:
    """The hooks registered on ``node`` (``Value.register_hook``), first registered first."""
    return [] if node._extra is None or node._extra.hooks is None else node._extra.hooks


def watched(out: N, prev: tuple[Any, ...], fn: Any, kept: Any) -> N:
    """The slow path of making a node, in a thread inside no_grad (a leaf, marked as made there),
    detect_anomaly (the node remembers the file and line in your code that made it) or
    record_scopes (the innermost open scope lists the node: micrograd/scopes.py)."""
    ident = get_ident()
    if ident in grad_mode.no_grad_threads:
        out._prev, out._fn, out._extra = (), None, Extra(op=NO_GRAD)  # type: ignore[attr-defined]
        return out
    extra = None if kept is None else Extra(kept)
    if ident in grad_mode.anomaly_threads:
        extra = extra or Extra()
        extra.origin = grad_mode.where_made(ENGINE_DIRS)
    out._prev, out._fn, out._extra = prev, fn, extra  # type: ignore[attr-defined]
    scopes = grad_mode.scope_stacks.get(ident)
    if scopes:
        scopes[-1].nodes.append(out)
    return out


def where_made(node: Any) -> str:
    """The line of your code that made ``node`` inside ``detect_anomaly()``."""
    extra = node._extra
    return "made outside detect_anomaly()" if extra is None or extra.origin is None else extra.origin


def run_closure(node: Any, g: Any, grads: dict[Any, Any], create_graph: bool = False) -> None:
    """Run a hand-written ``_backward`` as micrograd 0.1.0 does, on ``.grad``: the node's ``.grad``
    holds its gradient and each operand's what it has received so far; whatever the closure
    leaves there is what the operand has now (so ``=`` instead of ``+=`` overwrites, as in
    micrograd).  Every ``.grad`` is put back afterwards: ``backpropagate`` adds them up."""
    if create_graph:
        raise RuntimeError(
            f"cannot differentiate op {node._op or '?'!r} twice: its rule is a hand-written _backward "
            "closure, which adds floats into .grad and records no graph. Define the op as a "
            "micrograd.Function (forward and backward written with operators and micrograd.math) "
            "to use it with grad(create_graph=True), gradgradcheck and compile"
        )
    children = list(dict.fromkeys(node._prev))
    kept = [c.grad for c in children]
    kept_own = node.grad
    try:
        for c in children:
            so_far = grads.get(c)
            c.grad = 0.0 if so_far is None else so_far
        node.grad = g
        node._extra.ctx()  # the closure
        for c in children:
            grads[c] = c.grad
    finally:
        for c, grad in zip(children, kept):
            c.grad = grad
        node.grad = kept_own


def grad_holds_value_error(node: Any) -> TypeError:
    """What ``backward()`` says when a ``.grad`` it would add to holds a Value, not a number."""
    return TypeError(
        f"a .grad holds a Value ({node.grad!r}), where a gradient is a number: backward() would add to "
        "it and build a graph of gradients. An assignment such as `p.grad = 2 * (p - t)` put it there; "
        "store numbers: `p.grad = (2 * (p - t)).data` stores a Value's number, `p.grad = 0.0` resets "
        "it (as nn.optim's zero_grad() does)"
    )


def no_rule_error(node: Any) -> RuntimeError:
    """What ``backward()`` says of a node built by hand with no rule."""
    return RuntimeError(
        f"cannot backpropagate through op {node._op or '?'!r}: this node was built by hand "
        f"(Value(data, children, {node._op!r})) without a derivative rule. Give it one the lecture's way "
        "(out._backward = a closure that adds into the children's .grad) or define the op as a "
        "micrograd.Function (forward and backward)"
    )


# The engine's graph walk recurses (faster) while Python's recursion limit is at most this; a limit
# raised higher (micrograd 0.1.0's users raise it for deep graphs) could overflow the C stack on 3.10.
DEEPEST_RECURSION = 20_000


def deep_topological_order(roots: Iterable[Any]) -> dict[Any, Any]:
    """The engine's ``topological_order`` without recursion, for a graph of any depth: ``path``
    holds the nodes being expanded and ``pending`` an iterator over each one's operands, or None
    for a node of two operands, whose ``_a`` and ``_b`` are looked at again (an iterator would need
    a tuple of them, a million of them alive at once along a million-node chain)."""
    order: dict[Any, Any] = {}
    for root in roots:
        if root in order:
            continue
        path, pending = [root], [iter(root._a) if root._b is OPERANDS else None]
        while path:
            node, operands = path[-1], pending[-1]
            if operands is None:  # two operands: the first not in order yet
                a = node._a
                if a not in order:
                    child = a
                else:
                    b = node._b
                    child = None if b in order else b
            else:
                child = next(operands, None)
                while child is not None and child in order:
                    child = next(operands, None)
            if child is None:  # every operand is in order: the node follows them
                order[path.pop()] = None
                pending.pop()
            else:
                path.append(child)
                pending.append(iter(child._a) if child._b is OPERANDS else None)
    return order
