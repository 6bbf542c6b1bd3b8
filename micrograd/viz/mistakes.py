"""Break-it mode: the classic bugs of a hand-written backward pass, run on a graph beside the right one.

``wrong_gradients(root, mistake)`` simulates a buggy ``backward()`` over the graph's
``GraphModel`` with the ops' own local derivatives, and returns every Value's right and
wrong gradient, the first Value where they differ and one line saying why.  Nothing is
run on the Values themselves: every ``.grad`` is left as it was.

The mistakes (``MISTAKES``):

- ``"overwrite"``: ``=`` instead of ``+=`` in the ops' rules, so a Value used twice keeps
  only its last contribution (the bug of the lecture's video);
- ``"no-topo"``: a recursive backward without a topological order: the output's gradient set
  to 1, then ``def _bwd(v): v._backward(); for c in v._prev: _bwd(c)`` from the output, each
  op's operands once (as 0.1.0's set holds them: ``a + a`` is one step), so a rule runs before
  all its node's users have added in (and once per path to it);
- ``"no-zero-grad"``: ``backward()`` twice without zeroing the gradients in between, the
  lecture's ``backward()`` (it sets the output's gradient to 1, then adds into the rest);
- ``"tanh"``: tanh's rule with ``1 - t`` instead of ``1 - t**2``.

Every engine here, right or wrong, runs the rules in micrograd 0.1.0's backward order: its
``build_topo``'s depth-first post-order from the output, reversed, so the numbers are the ones
micrograd 0.1.0's engine computes with the bug planted.  One assumption: each Value's operands
in the order they were given (0.1.0 keeps them in a set, whose order follows the Values' hashes,
so the same code can run ``a * b``'s operands either way from one run to the next).  On the
lecture's graph the order is f, e, d, so under ``"overwrite"`` d's rule writes a and b last:

>>> from micrograd import Value
>>> a = Value(-2.0, label="a"); b = Value(3.0, label="b")
>>> d = a * b; d.label = "d"; e = a + b; e.label = "e"; f = d * e; f.label = "f"
>>> broken = wrong_gradients(f, "overwrite")
>>> broken[a], broken[b]          # (right, wrong): d's contributions overwrote e's
((-3.0, 3.0), (-8.0, -2.0))
>>> broken.first is b, a.grad     # the first Value in backward order where they differ; .grad untouched
(True, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Value, vjp
from .graph_model import GraphModel, fmt, graph_model

__all__ = [
    "MAX_RECURSION_RUNS",
    "MISTAKES",
    "SIMULATED_ORDER",
    "UNCHANGED",
    "BrokenBackward",
    "check_mistake",
    "page_data",
    "wrong_gradients",
]

#: Each mistake's name and what it gets wrong, in one line.
MISTAKES: dict[str, str] = {
    "overwrite": "= instead of += in the rules: a Value used twice keeps only its last contribution",
    "no-topo": "a recursive backward, no topological order: a rule runs before all its node's users added in",
    "no-zero-grad": "backward() twice without zeroing the gradients in between",
    "tanh": "tanh's rule with 1 - t instead of 1 - t**2",
}

#: The order every buggy backward here runs the rules in, and its one assumption, as the page says it.
SIMULATED_ORDER = (
    "As micrograd 0.1.0 computes it with the bug planted: the rules run in build_topo's order, reversed "
    "(depth first from the output; no-topo: in the recursion's order), each Value's operands taken in "
    "the order they were written (0.1.0 keeps them in a set, whose order can change from run to run)."
)

#: The naive recursion of "no-topo" runs a rule once per path from the output, and a graph with
#: reused Values has exponentially many paths: beyond this many runs it is refused, not run.
MAX_RECURSION_RUNS = 200_000

#: ``wrong_gradients``' default limit on the graph's size, as ``explore``'s.
MAX_NODES = 20_000

#: What ``wrong_gradients``' GraphTooLargeError advises (``{n}``: the graph's size).
ADVICE = "break the graph of a single sample, or raise the limit with max_nodes={n} (None: no limit)."

Grads = dict[Value, float]
#: A buggy backward's gradients, and what says why a Value's gradient came out wrong.
Broken = tuple[Grads, Callable[[Value, float], str]]
#: Each Value's operands and local derivatives, one pair per operand slot (None: nothing sent).
Locals = dict[Value, list[tuple[Value, float | None]]]


def check_mistake(mistake: object, what: str = "wrong_gradients") -> str:
    """``mistake`` if it is one of ``MISTAKES``, else a ValueError listing them.

    >>> check_mistake("=")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: wrong_gradients: unknown mistake '=': the mistakes are 'overwrite', 'no-topo', ...
    """
    if not isinstance(mistake, str) or mistake not in MISTAKES:
        names = ", ".join(map(repr, MISTAKES))
        raise ValueError(f"{what}: unknown mistake {mistake!r}: the mistakes are {names}")
    return mistake


@dataclass(frozen=True)
class BrokenBackward:
    """What one mistake does to a graph's gradients.  ``result[v]`` is ``(right, wrong)``.

    ``order``: the Values in backward order (the output first, each after all its users);
    ``right`` and ``wrong``: d(output)/d(v), by the engine and by the buggy backward;
    ``first``: the first Value of ``order`` whose gradients differ (None: none does);
    ``reason``: one line saying why (or why nothing changed).  ``print`` shows them as a table.

    >>> from micrograd import Value
    >>> x = Value(0.5, label="x"); t = x.tanh(); t.label = "t"
    >>> print(wrong_gradients(t, "tanh"))  # doctest: +ELLIPSIS
    tanh: tanh's rule with 1 - t instead of 1 - t**2
         Value         right         wrong
             t        1.0000        1.0000
             x        0.7864        0.5379  <- first
    x gets its gradient through t = tanh(x) = 0.4621, whose rule used 1 - t = 0.5379 instead of ...
    """

    mistake: str
    order: tuple[Value, ...]
    names: dict[Value, str]
    right: Grads
    wrong: Grads
    first: Value | None
    reason: str

    def __getitem__(self, v: Value) -> tuple[float, float]:
        return self.right[v], self.wrong[v]

    def differs(self, v: Value) -> bool:
        """Whether ``v``'s wrong gradient is not its right one (beyond rounding)."""
        return _differ(self.right[v], self.wrong[v])

    def __str__(self) -> str:
        rows = [f"{self.mistake}: {MISTAKES[self.mistake]}", f"{'Value':>10}  {'right':>12}  {'wrong':>12}"]
        for v in self.order:
            mark = "  <- first" if v is self.first else ("  x" if self.differs(v) else "")
            rows.append(f"{self.names[v]:>10}  {fmt(self.right[v]):>12}  {fmt(self.wrong[v]):>12}{mark}")
        return "\n".join([*rows, self.reason])


def _differ(right: float, wrong: float) -> bool:
    if math.isnan(right) or math.isnan(wrong):
        return math.isnan(right) != math.isnan(wrong)
    return not math.isclose(right, wrong, rel_tol=1e-9, abs_tol=1e-12)


def _operands(v: Value) -> list[Value]:
    """``v``'s operands, each once, in order (an operand listed twice, ``a + a``, is one edge
    for the order; its rule still sends it two contributions)."""
    return list(dict.fromkeys(v._prev))


def backward_order(model: GraphModel) -> list[Value]:
    """micrograd 0.1.0's backward order: ``build_topo``'s depth-first post-order from the output,
    each Value's operands in the order they were given, reversed (the output first, each Value
    after all its users)."""
    root = model.outputs[0]
    topo: list[Value] = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:  # build_topo's recursion, with a stack: a long chain would pass Python's limit
        v, operands = stack[-1]
        c = next((c for c in operands if c not in visited), None)
        if c is None:
            stack.pop()
            topo.append(v)
        else:
            visited.add(c)
            stack.append((c, iter(c._prev)))
    return topo[::-1]


def local_derivatives(model: GraphModel) -> Locals:
    """Each op's local derivative for each operand slot, as its own rule gives them (asked with
    an upstream gradient of 1, as ``explain`` asks); none for leaves and ops without a rule."""
    found: Locals = {}
    for v in model.order:
        if v._prev and v._fn is not None:
            found[v] = [(c, None if d is None else float(d)) for c, d in zip(v._prev, vjp(v, 1.0))]
    return found


def _accumulate(order: Sequence[Value], local: Locals, grads: Grads) -> Grads:
    """The right backward pass (``+=``, in ``order``) adding into ``grads``, the output's seed set."""
    for v in order:
        for c, d in local.get(v, ()):
            if d is not None:
                grads[c] += d * grads[v]
    return grads


def _fresh(order: Sequence[Value]) -> Grads:
    grads = dict.fromkeys(order, 0.0)
    grads[order[0]] = 1.0
    return grads


def _users(order: Sequence[Value], v: Value) -> list[Value]:
    return [u for u in order if v in u._prev]


def _overwrite(order: Sequence[Value], local: Locals, names: dict[Value, str]) -> Broken:
    """``=`` for ``+=``: each contribution replaces the gradient so far."""
    grads = _fresh(order)
    received: dict[Value, list[tuple[Value, float]]] = {v: [] for v in order}
    for v in order:
        for c, d in local.get(v, ()):
            if d is not None:
                grads[c] = d * grads[v]
                received[c].append((v, grads[c]))

    def why(x: Value, right: float) -> str:
        parts = received[x]
        listed = ", ".join(f"{fmt(g)} from {names[u]}" for u, g in parts)
        return (
            f"{names[x]} receives {len(parts)} contributions ({listed}); with = instead of +=, each "
            f"overwrote the one before, so it keeps the last, {fmt(parts[-1][1])}, not their sum {fmt(right)}"
        )

    return grads, why


def _paths(order: Sequence[Value]) -> int:
    """How many times the naive recursion enters a Value: once per path from the output."""
    paths = dict.fromkeys(order, 0)
    paths[order[0]] = 1
    for v in order:
        for c in _operands(v):
            paths[c] += paths[v]
    return sum(paths.values())


def _no_topo(order: Sequence[Value], local: Locals, names: dict[Value, str]) -> Broken:
    """``_bwd(v): v._backward(); for c in v._prev: _bwd(c)``, with ``+=`` rules: each Value's
    rule runs every time the recursion reaches it, with its gradient so far."""
    runs = _paths(order)
    if runs > MAX_RECURSION_RUNS:
        raise ValueError(
            f"no-topo: the naive recursion would run {runs:,} rules on this graph (once per path from the "
            f"output), more than MAX_RECURSION_RUNS={MAX_RECURSION_RUNS:,}; break a smaller graph"
        )
    grads = _fresh(order)
    ran_with: dict[Value, list[float]] = {v: [] for v in order}
    stack = [order[0]]
    while stack:  # (a stack, not Python's recursion: a long chain would pass its limit)
        v = stack.pop()
        ran_with[v].append(grads[v])
        for c, d in local.get(v, ()):
            if d is not None:
                grads[c] += d * grads[v]
        stack.extend(reversed(_operands(v)))  # the first operand's whole walk comes first

    def why(x: Value, right: float) -> str:
        users = [u for u in _users(order, x) if len(ran_with[u]) > 1] or _users(order, x)
        u, seen = users[0], ran_with[users[0]]
        return (
            f"{names[u]}'s rule ran {len(seen)} times, once per path to it, with its gradient so far "
            f"({', '.join(map(fmt, seen))}), not once with its total: the recursion reached {names[u]} "
            f"before all its users had added in, so {names[x]} got {fmt(grads[x])}, not {fmt(right)}"
        )

    return grads, why


def _no_zero_grad(order: Sequence[Value], local: Locals, names: dict[Value, str]) -> Broken:
    """Two of the lecture's ``backward()`` without zeroing: the second sets the output's gradient
    to 1 again (``self.grad = 1``) and adds the rest onto the first pass's."""
    first = _accumulate(order, local, _fresh(order))
    second = dict(first)
    second[order[0]] = 1.0
    _accumulate(order, local, second)

    def why(x: Value, right: float) -> str:
        return (
            f"nothing zeroed the gradients between the two backward() calls: {names[x]} kept the first "
            f"pass's {fmt(first[x])} and the second added {fmt(second[x] - first[x])} on top "
            f"({names[order[0]]} was set to 1 again, as the lecture's backward() does)"
        )

    return second, why


def _tanh(order: Sequence[Value], local: Locals, names: dict[Value, str]) -> Broken:
    """tanh's local derivative taken as ``1 - t`` for ``1 - t**2`` (``t``: the output)."""
    broken = dict(local)
    for v in local:
        if _is_tanh(v):
            broken[v] = [(c, 1.0 - v.data) for c, _ in local[v]]
    grads = _accumulate(order, broken, _fresh(order))

    def why(x: Value, right: float) -> str:
        u = next((u for u in _users(order, x) if _is_tanh(u)), None)
        if u is None:
            return f"{names[x]} inherits a wrong gradient from a tanh further up"
        t = u.data
        return (
            f"{names[x]} gets its gradient through {names[u]} = tanh({names[x]}) = {fmt(t)}, whose rule used "
            f"1 - t = {fmt(1 - t)} instead of 1 - t**2 = {fmt(1 - t * t)}"
        )

    return grads, why


def _is_tanh(v: Value) -> bool:
    return v._op == "tanh" and v._fn is not None and bool(getattr(v._fn, "builtin", False))


SIMULATIONS = {"overwrite": _overwrite, "no-topo": _no_topo, "no-zero-grad": _no_zero_grad, "tanh": _tanh}

#: Why a mistake changed nothing, when it did not.
UNCHANGED = {
    "overwrite": "no Value receives more than one contribution, so = and += agree",
    "no-topo": "no intermediate Value is used twice, so the recursion reaches every rule after all its users",
    "no-zero-grad": "the second pass added nothing (no gradient reaches past the output)",
    "tanh": "the graph has no tanh",
}


def broken_backward(
    model: GraphModel, mistake: str, right: Grads, local: Locals | None = None
) -> BrokenBackward:
    """``mistake`` run on ``model``'s graph (one output), beside the ``right`` gradients
    (``local``: ``local_derivatives(model)``, if already asked)."""
    check_mistake(mistake)
    order = backward_order(model)
    if local is None:
        local = local_derivatives(model)
    wrong, why = SIMULATIONS[mistake](order, local, model.names)
    first = next((v for v in order if _differ(right[v], wrong[v])), None)
    if first is None:
        reason = f"{mistake} changes no gradient of this graph: {UNCHANGED[mistake]}"
    else:
        reason = why(first, right[first])
    return BrokenBackward(mistake, tuple(order), model.names, right, wrong, first, reason)


def wrong_gradients(root: Value, mistake: str, max_nodes: int | None = MAX_NODES) -> BrokenBackward:
    """Run ``mistake`` (one of ``MISTAKES``) on ``root``'s graph, in Python, beside the right
    backward pass; every ``.grad`` is left as it was.

    >>> from micrograd import Value
    >>> a = Value(3.0, label="a"); b = a + a
    >>> wrong_gradients(b, "overwrite")[a]          # the video's bug: 1, not 2
    (2.0, 1.0)
    >>> wrong_gradients(b, "tanh").reason
    'tanh changes no gradient of this graph: the graph has no tanh'
    """
    if not isinstance(root, Value):
        raise TypeError(f"wrong_gradients() needs a Value, got {type(root).__name__}: {root!r}")
    check_mistake(mistake)
    model = graph_model(root, max_nodes=max_nodes, what="wrong_gradients", advice=ADVICE, expressions=True)
    return broken_backward(model, mistake, model.backward().grads)


def _num(x: float) -> list[str]:
    return [fmt(x), repr(float(x))]


def page_data(model: GraphModel, right: Grads, selected: str | None) -> dict[str, Any]:
    """The explorer's break-it data: the backward order (node indices), each node's right gradient
    and, per mistake, the wrong ones that differ, the first and the reason; a mistake this graph
    cannot run (no-topo on too many paths) is listed with why, unless it is the ``selected`` one.

    >>> from micrograd import Value
    >>> a = Value(3.0, label="a"); b = a + a; model = graph_model(b)
    >>> data = page_data(model, model.backward().grads, "overwrite")
    >>> data["order"], data["mistakes"][0]["first"], data["mistakes"][0]["wrong"]
    ([1, 0], 0, {'0': ['1.0000', '1.0']})
    """
    index = model.index
    order = backward_order(model)
    local = local_derivatives(model)  # (asked once for the four mistakes: a rule per op)
    mistakes: list[dict[str, Any]] = []
    for name, title in MISTAKES.items():
        try:
            broken = broken_backward(model, name, right, local)
        except ValueError as refused:
            if name == selected:
                raise
            mistakes.append({"name": name, "title": title, "refused": str(refused)})
            continue
        mistakes.append(
            {
                "name": name,
                "title": title,
                "first": None if broken.first is None else index[broken.first],
                "reason": broken.reason,
                "wrong": {str(index[v]): _num(broken.wrong[v]) for v in order if broken.differs(v)},
            }
        )
    return {
        "selected": selected,
        "simulates": SIMULATED_ORDER,
        "order": [index[v] for v in order],
        "names": [model.names[v] for v in model.order],
        "right": [_num(right[v]) for v in model.order],
        "mistakes": mistakes,
    }
