"""Phase 2b of ``micrograd.compile``: nodes grouped so that one numpy call computes a group.

Nodes of the same level with the same op, parameters and gradient needs (and, batched,
the same sharing between samples) form a group: the replay calls the op's ``forward``
once on arrays holding all their operands, and its ``backward`` once.

An optional pass (``pad_groups``) then merges the groups of one level that differ only in
their count of operands (a softmax's sums over 1, 2, ... positions, an attention's weighted
sums, its maxima): each node's operands are padded to the longest with operands that change
nothing (``Pads``), so that one call computes them all, with the same floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import repeat
from operator import itemgetter
from typing import Any, NamedTuple

from .._core.context import args_of
from .._core.nodes import CONSTANT
from ..engine import Function, Value
from ..ops.basic import DetachedMax, Dot
from .array_rules import block_rules
from .graph import Graph
from .sharing import Sharing


class GroupKey(NamedTuple):
    """What the nodes of one group have in common.

    ``op``: their ``Function`` (None: an ordered sum); ``arguments``: the op's argument
    template when it has parameters, else the count of arguments (a sum: of terms); ``needs``:
    which operands need a gradient (a sum: whether it does); ``shared``, ``narrow``: (batched)
    values, and contributions, the same for every sample; ``constants``: the op's parameters."""

    level: int
    op: type[Function] | None
    arguments: Any
    needs: tuple[bool, ...]
    shared: bool
    narrow: bool
    constants: tuple[Any, ...] = ()


Template = tuple[tuple[bool, Any], ...]


def template_of(args: Sequence[Any]) -> Template:
    """An op's arguments as ``(True, k)`` for its k-th operand Value, ``(False, number)`` for a parameter."""
    if all(map(isinstance, args, repeat(Value))):  # (most ops: operands only, one template per count)
        return _plain(len(args))
    template, k = [], 0
    for a in args:
        if isinstance(a, Value):
            template.append((True, k))
            k += 1
        else:
            template.append((False, a))
    return tuple(template)


@cache
def _plain(n: int) -> Template:
    return tuple((True, k) for k in range(n))


def key_of(v: Value, graph: Graph, sharing: Sharing, template: Template) -> GroupKey:
    """The group of op node ``v`` whose arguments (``template``) are not its operands alone (an
    ordered sum's key, and a plain op's, ``group_nodes`` makes itself, as plain tuples)."""
    shared, narrow = v in sharing.values, v in sharing.narrow
    needs = tuple(map(graph.needs_grad.get, v._prev, repeat(False)))
    if template is _plain(len(template)):  # operands only (a Dot's 33 or 129): nothing to look through
        return GroupKey(graph.level[v], graph.ops[v], len(template), needs, shared, narrow)
    constants = tuple(a for is_operand, a in template if not is_operand)
    try:
        hash(constants)
        arguments: Any = template if constants else len(template)
    except TypeError:  # parameters that cannot be compared: a group of its own
        arguments, constants = len(template), (id(v),)
    return GroupKey(graph.level[v], graph.ops[v], arguments, needs, shared, narrow, constants)


def group_nodes(
    graph: Graph, sharing: Sharing
) -> tuple[list[GroupKey], dict[GroupKey, list[Value]], dict[Value, Template]]:
    """The groups, their keys in level order (ties in first-seen order), and each op node's template."""
    templates: dict[Value, Template] = {}
    # (keyed by plain tuples, equal to the GroupKey they become: a GroupKey made per node, through
    # its Python-level constructor and key_of, took a third of this pass on a GPT step's 7,000 nodes)
    groups: dict[tuple[Any, ...], list[Value]] = {}
    level, ops, operands, needs_grad = graph.level, graph.ops, graph.operands, graph.needs_grad
    values, narrow = sharing.values, sharing.narrow
    # whether each operand of each op node needs a gradient, for all at once from their numbers
    # (``graph.Edges``), a node's a slice of them: no lookup per operand (a GPT step: 107,000)
    numbered = graph.numbered
    # (as bytes, 0 or 1 each: a slice of them is a copy in C, and hashes in C, where a tuple of a
    # Dot's 129 bools is hashed element by element at every lookup; tuples again once per group)
    needs, first = numbered.needs[numbered.operand_ids].tobytes(), numbered.first_operand
    for v in graph.computed:
        fn = ops.get(v)
        shared = v in values, v in narrow
        if fn is None:  # an ordered sum
            key: tuple[Any, ...] = (level[v], None, len(operands[v]), (needs_grad[v],), *shared, ())
        else:
            prev = v._prev
            # (as many arguments as operands: all Values, as for most ops, none to look through)
            if v._extra is None or len(args_of(v)) == len(prev):
                template = templates[v] = _plain(len(prev))
                key = (level[v], fn, len(prev), needs[first[v] : first[v] + len(prev)], *shared, ())
            else:
                template = templates[v] = template_of(args_of(v))
                key = key_of(v, graph, sharing, template)
        members = groups.get(key)
        if members is None:
            groups[key] = [v]
        else:
            members.append(v)
    made = {as_key(key): members for key, members in groups.items()}
    keys = sorted(made, key=_level)  # stable: ties keep their first-seen order
    return keys, made, templates


_level = itemgetter(0)


def as_key(key: tuple[Any, ...]) -> GroupKey:
    """A key of ``group_nodes``' as the ``GroupKey`` it stands for (its needs as bools, not bytes)."""
    if type(key[3]) is bytes:
        key = (*key[:3], tuple(map(bool, key[3])), *key[4:])
    return GroupKey._make(key)


PADDED = "padded"  # GroupKey.arguments of a merged group: (PADDED, its operands' count, padded)


@dataclass
class Pads:
    """The constants a merged group pads its nodes' operands with, each changing nothing where it
    goes: an ordered sum's extra terms, -0.0 (``x + -0.0`` is ``x``, signed zeros, inf and nan
    included); a ``Dot``'s extra pairs, -0.0 times 0.0 (-0.0, added); a ``DetachedMax``'s extra
    operands, -inf (never ``> top``, so never taken).  ``used``: whether a group was padded."""

    minus_zero: Value = field(default_factory=lambda: Value(-0.0, _op=CONSTANT))
    zero: Value = field(default_factory=lambda: Value(0.0, _op=CONSTANT))
    minus_inf: Value = field(default_factory=lambda: Value(float("-inf"), _op=CONSTANT))
    used: bool = False

    def constants(self) -> list[Value]:
        """The pads as constants of the value arrays (none if no group was padded)."""
        return [self.minus_zero, self.zero, self.minus_inf] if self.used else []

    def operands(
        self, op: type[Function] | None, prev: Sequence[Any], arity: int, fill: Any = ...
    ) -> list[Any]:
        """``prev`` (a node's operands, or what is known of each, e.g. its edge's rank) padded to
        ``arity`` operands with the pads, or with ``fill`` in their places when given."""
        if op is Dot:  # (start, w0.., x0..): pairs (-0.0, 0.0) after the weights and the inputs
            n, more = (len(prev) - 1) // 2, (arity - len(prev)) // 2
            w, x = (self.minus_zero, self.zero) if fill is ... else (fill, fill)
            return [*prev[: n + 1], *[w] * more, *prev[n + 1 :], *[x] * more]
        pad = (self.minus_inf if op is DetachedMax else self.minus_zero) if fill is ... else fill
        return [*prev, *[pad] * (arity - len(prev))]


def merged_arity(key: GroupKey) -> int:
    """(A group ``pad_groups`` merged) the count of operands its nodes are padded to; else 0."""
    args = key.arguments
    return args[1] if type(args) is tuple and len(args) == 2 and args[0] == PADDED else 0


def paddable(key: GroupKey) -> bool:
    """Whether ``key``'s group may be merged with others of other counts of operands: an ordered
    sum, or a ``Dot`` or ``DetachedMax`` whose rules are the engine's own, on operands only."""
    if key.op is None:
        return True
    return (
        key.op in (Dot, DetachedMax)
        and isinstance(key.arguments, int)
        and not key.constants
        and block_rules(key.op) is not None
    )


def compact_needs(key: GroupKey) -> tuple[Any, ...] | None:
    """What a merged group's nodes must share of their gradient needs: a sum's (whether it needs
    one); a Dot's start's, its weights' and its inputs' (each alike for all of them); a max's (all
    alike).  None: the needs differ within a node, which a merged group cannot say."""
    needs = key.needs
    if key.op is None:
        return needs
    if key.op is Dot:
        n = (len(needs) - 1) // 2
        ws, xs = set(needs[1 : n + 1]), set(needs[n + 1 :])
        if len(ws) > 1 or len(xs) > 1:
            return None
        return (needs[0], *ws, *xs) if n else None  # (a Dot of no pair: too short to say)
    return needs[:1] if len(set(needs)) == 1 else None


def pad_groups(
    keys: list[GroupKey], groups: dict[GroupKey, list[Value]], pads: Pads, waste: float = 2.0
) -> list[GroupKey]:
    """The groups of one level, one op and the same needs and sharing that differ only in their
    count of operands, merged into one (``groups`` is changed in place) while the merged group
    computes at most ``waste`` times the numbers its groups would: its nodes' operands padded
    to the longest with ``pads``.  Returns the keys, merged ones where their first group was."""
    families: dict[tuple[Any, ...], list[GroupKey]] = {}
    for key in keys:
        needs = compact_needs(key) if paddable(key) else None
        if needs is not None:
            families.setdefault((key.level, key.op, needs, key.shared, key.narrow), []).append(key)
    merged: dict[GroupKey, GroupKey] = {}  # a key merged away -> its merged key
    for family in families.values():
        family.sort(key=lambda k: int(k.arguments))
        runs: list[list[GroupKey]] = []
        for key in family:
            if runs and fits([*runs[-1], key], groups, waste):
                runs[-1].append(key)
            else:
                runs.append([key])
        for run in runs:
            if len(run) > 1:
                new = merged_key(run)
                groups[new] = [v for k in run for v in groups.pop(k)]
                merged.update(dict.fromkeys(run, new))
                pads.used = True
    out: dict[GroupKey, None] = {}  # (each merged key once, where the first of its groups was)
    for key in keys:
        out[merged.get(key, key)] = None
    return list(out)


def merged_key(run: list[GroupKey]) -> GroupKey:
    """The key of ``run``'s groups merged: its nodes' count of operands the longest's, and their needs."""
    arity, needs = int(run[-1].arguments), compact_needs(run[0])
    assert needs is not None
    if run[0].op is Dot:  # (start, weights, inputs): each as many as the longest has
        pairs = (arity - 1) // 2
        needs = (needs[0], *[needs[1]] * pairs, *[needs[2]] * pairs)
    elif run[0].op is DetachedMax:
        needs = needs * arity
    return run[0]._replace(arguments=(PADDED, arity), needs=needs)


def fits(run: list[GroupKey], groups: dict[GroupKey, list[Value]], waste: float) -> bool:
    """Whether ``run``'s groups padded to the longest compute at most ``waste`` times their numbers."""
    arity = max(int(k.arguments) for k in run)
    real = sum(int(k.arguments) * len(groups[k]) for k in run)
    return arity * sum(len(groups[k]) for k in run) <= waste * real
