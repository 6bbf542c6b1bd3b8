"""Phase 2b of ``micrograd.compile``: nodes grouped so that one numpy call computes a group.

Nodes of the same level with the same op, parameters and gradient needs (and, batched,
the same sharing between samples) form a group: the replay calls the op's ``forward``
once on arrays holding all their operands, and its ``backward`` once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import repeat
from typing import Any, NamedTuple

from .._core.context import args_of
from ..engine import Function, Value
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


def key_of(v: Value, graph: Graph, sharing: Sharing, template: Template | None) -> GroupKey:
    """The group ``v`` belongs to (``template``: its op's arguments; None for an ordered sum)."""
    shared, narrow = v in sharing.values, v in sharing.narrow
    if template is None:
        return GroupKey(graph.level[v], None, len(graph.operands[v]), (graph.needs_grad[v],), shared, narrow)
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
    groups: dict[GroupKey, list[Value]] = {}
    for v in graph.computed:
        template = None
        if v in graph.ops:
            template = templates[v] = template_of(args_of(v))
        groups.setdefault(key_of(v, graph, sharing, template), []).append(v)
    keys = sorted(groups, key=lambda k: k.level)  # stable: ties keep their first-seen order
    return keys, groups, templates
