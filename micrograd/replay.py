"""The compiled steps (see ``micrograd.compile``): ``CompiledStep``, a traced graph's
plan and its replay, and ``BatchedStep``, the same over a batch of samples.

The plan (``CompiledStep.__init__``) groups the nodes by topological level, op
and parameters (``groups._Group``), fuses left chains of additions into ordered
sums, lays out the value arrays so that most operands are views, and decides
where every gradient contribution goes; the replay runs the groups forward and
backward (``_forward``, ``_backward``) on the arrays.
"""

from __future__ import annotations

import reprlib
import struct
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from .autograd import topological_order
from .context import args_of
from .engine import Add, Function, HandWritten, Value, vjp
from .groups import (
    C_FIRST,
    CONTRIB,
    G_FIRST,
    GRADS,
    GVALS,
    HOW_TO_FIX,
    CompileError,
    Gather,
    Group,
    as_block,
    as_index,
    load_numpy,
    ordered_sum,
    sum_uses,
    write_to,
)
from .nodes import CONSTANT, hooks_of
from .ops import Sub, Sum

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Indices = NDArray[np.intp]

__all__ = ["BatchedStep", "CompiledStep"]


# Sums (a + b, a - b, micrograd.sum) fuse into ordered sums: the sign of each operand after the first.
_SUMS: dict[type[Function], float] = {Add: 1.0, Sub: -1.0, Sum: 1.0}  # a - b is a + -1 * b, exactly


def _template(args: Sequence[Any]) -> tuple[tuple[bool, Any], ...]:
    """An op's arguments as ``(True, k)`` for its k-th operand Value, ``(False, number)`` for a parameter."""
    template, k = [], 0
    for a in args:
        if isinstance(a, Value):
            template.append((True, k))
            k += 1
        else:
            template.append((False, a))
    return tuple(template)


def _unreplayable(node: Value) -> str | None:
    """Why ``node`` cannot be replayed on arrays, or None."""
    if hooks_of(node):
        return (
            f"a Value ({node!r}) has hooks (register_hook), which only the eager engine calls; "
            "remove them (handle.remove()) before compiling, or train eagerly"
        )
    if node._fn is HandWritten:
        return (
            f"op {node._op or '?'!r} has a hand-written _backward closure, which works on floats only; "
            "define it as a micrograd.Function to compile it"
        )
    if node._fn is None:
        return (
            f"op {node._op or '?'!r} was built by hand (Value(data, children, op)) without a derivative "
            "rule; define it as a micrograd.Function to compile it"
        )
    return None


def as_array(x: object, what: str) -> Floats:
    np = load_numpy()
    try:
        arr: Floats = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"{what} must be a number, a (nested) list of numbers or a numpy array, "
            f"got {type(x).__name__}: {e}"
        ) from None
    return arr


def _blocks(
    keys: list[tuple[Any, ...]],
    groups: dict[tuple[Any, ...], list[Value]],
    operands: dict[Value, list[tuple[Value, float, int]]],
    params: dict[Value, int],
) -> dict[tuple[Any, ...], list[Value]]:
    """Lay out sums so that they read their terms as one block of slots, a view, not a copy.

    A sum group whose terms, ``(terms, nodes)``, are rows of parameters (a layer's biases), then
    every node of one op group once (its products ``w*x``), all added, has that op group's nodes
    reordered term by term (``groups`` is changed in place): the result says which parameters go
    right before which group's nodes, in the same order, so that the rows form the block."""
    member_of = {v: key for key, members in groups.items() for v in members}
    lead: dict[tuple[Any, ...], list[Value]] = {}
    placed: set[Value] = set()
    for key in keys:
        if key[1] != "+":
            continue
        rows = list(zip(*(operands[v] for v in groups[key])))
        if any(sign != 1.0 for row in rows for _, sign, _ in row):
            continue  # the replay multiplies the terms by their signs: they need a copy anyway
        k = 0
        while k < len(rows) and all(c in params for c, _, _ in rows[k]):
            k += 1
        firsts = [c for row in rows[:k] for c, _, _ in row]
        nodes = [c for row in rows[k:] for c, _, _ in row]
        other = member_of.get(nodes[0]) if nodes else None
        if (
            other is None
            or other[1] == "+"
            or other in lead
            or other[4] != key[4]  # (batched) both shared by the samples, or neither
            or len(set(nodes)) != len(nodes)
            or set(nodes) != set(groups[other])
            or len(set(firsts)) != len(firsts)
            or not placed.isdisjoint(firsts)
        ):
            continue
        groups[other] = nodes
        lead[other] = firsts
        placed.update(firsts)
    return lead


def _same(a: Any, b: Any) -> bool:
    np = load_numpy()
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    return bool(np.allclose(a, b, rtol=1e-9, atol=0.0, equal_nan=True))


def _probe(grp: Group, node: Value, shape: tuple[int, ...] = (2,)) -> None:
    """Run a user op's forward and backward once on arrays of ``shape`` filled with ``node``'s
    numbers (two elements; 2x2 for a batched step) and check them against the eager engine's:
    an ``if`` on data, ``math.exp`` or a result of the wrong shape shows up here, at compile
    time, not as wrong numbers later."""
    np = load_numpy()
    fn = grp.fn
    assert fn is not None
    lanes = [np.full(shape, c.data) for c in node._prev]
    out = grp.call_forward(lanes)
    if np.shape(out) not in ((), shape) or not _same(out, node.data):
        raise CompileError(
            f"{fn.name}.forward gives {out!r} on the arrays {lanes}, where the eager engine gives "
            f"{node.data!r} for each element; {HOW_TO_FIX}"
        )
    expected = vjp(node, 1.0)
    for k, (got, want) in enumerate(zip(grp.call_backward(np.ones(shape)), expected)):
        if got is None or want is None:
            if (got is None) != (want is None):
                raise CompileError(
                    f"{fn.name}.backward returns None for operand {k} on arrays only; {HOW_TO_FIX}"
                )
            continue
        if np.shape(got) not in ((), shape) or not _same(got, want):
            raise CompileError(
                f"{fn.name}.backward gives {got!r} for operand {k} on arrays, where the eager engine gives "
                f"{want!r} for each element; {HOW_TO_FIX}"
            )


def _shared_by_all_samples(
    root: Value,
    computed: list[Value],
    operands: dict[Value, list[tuple[Value, float, int]]],
    ops: dict[Value, type[Function]],
    inputs: set[Value],
    needs_grad: dict[Value, bool],
) -> tuple[set[Value], set[Value], set[int]]:
    """Batch invariance, for a batched replay (what ``jax.vmap`` does when it leaves unbatched
    values unbatched): ``(values, gradients, edges)``, the nodes whose value is the same for
    every sample, the nodes whose gradient is, and the ranks of the edges whose contribution is.

    A value is shared when it depends on no input (only parameters and constants), through the
    engine's own ops: a user ``Function`` is only ever run on arrays of one shape, as when it was
    probed, never on a mix of shared and per-sample ones.  Going backward from the loss (whose
    gradient is 1 for every sample), a sum hands each term ``sign * g``, shared when ``g`` is; any
    other op's contributions are shared when its operands, its output and ``g`` all are; and a
    node's gradient is shared when every contribution to it is."""
    values: set[Value] = set()
    for v in computed:
        if (v not in ops or ops[v].builtin) and all(
            c in values if c in operands else c not in inputs for c, _, _ in operands[v]
        ):
            values.add(v)
    gradients: set[Value] = {root}
    varying: set[Value] = set()  # nodes with a contribution that differs between samples
    edges: set[int] = set()
    for v in reversed(computed):  # every node after all of its consumers
        same = v in gradients and v not in varying and (v not in ops or v in values)
        for c, _, r in operands[v]:
            if needs_grad.get(c, False):
                if same:
                    edges.add(r)
                    gradients.add(c)
                else:
                    varying.add(c)
    return values, gradients - varying, edges


class CompiledStep:
    """A traced loss function replayed with numpy; made by ``compile``.

    Not thread-safe: a step keeps its arrays between calls (compile one per thread).
    """

    _probe_shape: tuple[int, ...] = (2,)  # the arrays a user op is tried on while compiling
    _batched = False  # value arrays are (slots,); a BatchedStep's are (slots, batch)

    def __init__(
        self, root: Value, inputs: list[Value], shapes: list[tuple[int, ...]], params: list[Value]
    ) -> None:
        np = load_numpy()
        self.num_nodes = self.num_groups = self._levels = 0  # (set below; here for repr)
        self.params: tuple[Value, ...] = tuple(params)
        self.input_shapes: tuple[tuple[int, ...], ...] = tuple(shapes)
        self._input_sizes = [int(np.prod(s, dtype=np.intp)) for s in shapes]
        n_in, n_p = len(inputs), len(params)
        param_index = {p: i for i, p in enumerate(params)}
        input_index = {x: i for i, x in enumerate(inputs)}
        order = topological_order(root)

        # Live nodes: those the loss is computed from through ops. Parameters and inputs are leaves here.
        live = {root}
        for node in reversed(order):
            if node in live and node._prev and node not in param_index:
                live.update(node._prev)
        nodes = [v for v in order if v in live]

        def computed_here(v: Value) -> bool:
            return bool(v._prev) and v not in param_index and v not in input_index

        ops: dict[Value, type[Function]] = {}
        sums: dict[Value, float] = {}
        for v in nodes:
            if not computed_here(v):
                if hooks_of(v):
                    raise CompileError(f"cannot replay the traced graph: {_unreplayable(v)}")
                continue
            why = _unreplayable(v)
            if why is not None:
                raise CompileError(f"cannot replay the traced graph: {why}")
            assert v._fn is not None
            if v._fn in _SUMS and len(args_of(v)) == len(v._prev):
                sums[v] = _SUMS[v._fn]
            else:
                ops[v] = v._fn
        # The eager backward's order: reverse topological, operands in order. Each (node, operand)
        # edge gets its rank, so that a node's gradient adds its contributions in the same order.
        uses: dict[Value, int] = dict.fromkeys(nodes, 0)
        rank: dict[tuple[Value, int], int] = {}
        for v in reversed(nodes):
            if computed_here(v):
                for k, c in enumerate(v._prev):
                    uses[c] += 1
                    rank[v, k] = len(rank)

        # Fuse left chains of +, - and micrograd.sum, each link the first operand of the next and
        # used only there, into one ordered sum: the eager floats, with the links gone.
        terms: dict[Value, list[tuple[Value, float, int]]] = {}  # node -> (term, sign, rank)
        for v in nodes:
            if v not in sums:
                continue
            first, *rest = v._prev
            fuse = first in terms and uses[first] == 1
            chain = terms.pop(first) if fuse else [(first, 1.0, rank[v, 0])]
            chain += [(c, sums[v], rank[v, k]) for k, c in enumerate(rest, 1)]
            terms[v] = chain
        operands: dict[Value, list[tuple[Value, float, int]]] = dict(terms)
        for v in ops:
            operands[v] = [(c, 1.0, rank[v, k]) for k, c in enumerate(v._prev)]
        computed = [v for v in nodes if v in operands]  # topological order, fused links gone

        needs_grad: dict[Value, bool] = dict.fromkeys(params, True)
        level: dict[Value, int] = {}
        for v in computed:
            level[v] = 1 + max(level.get(c, 0) for c, _, _ in operands[v])
            needs_grad[v] = any(needs_grad.get(c, False) for c, _, _ in operands[v])

        # Batched: what every sample shares runs once, on arrays of one column (BatchedStep._allocate).
        shared, shared_grad, shared_edges = (
            _shared_by_all_samples(root, computed, operands, ops, set(inputs), needs_grad)
            if self._batched
            else (set(), set(), set())
        )
        # a group whose contributions are shared runs its backward on one column too
        narrow = {v for v in computed if v in shared_grad and (v not in ops or v in shared)}
        wide = {root}  # shared values read as whole rows: the loss and operands of per-sample ops
        for v in computed:
            if v not in shared:
                wide.update(c for c, _, _ in operands[v])

        # Group: same level, op, parameters, (for backward) which operands need gradients, and
        # (batched) whether the values and the contributions are shared by the samples.
        templates: dict[Value, tuple[tuple[bool, Any], ...]] = {}
        groups: dict[tuple[Any, ...], list[Value]] = {}
        for v in computed:
            if v in ops:
                template = _template(args_of(v))
                templates[v] = template
                flags = tuple(needs_grad.get(c, False) for c in v._prev)
                constants = tuple(a for is_operand, a in template if not is_operand)
                try:
                    hash(constants)
                except TypeError:
                    constants = (id(v),)  # parameters that cannot be compared: a group of its own
                key: tuple[Any, ...] = (level[v], ops[v], template if constants else len(template), flags)
            else:
                key, constants = (level[v], "+", len(operands[v]), needs_grad[v]), ()
            key += (v in shared, v in narrow)
            if constants:
                key += (constants,)
            groups.setdefault(key, []).append(v)
        keys = sorted(groups, key=lambda k: k[0])  # stable: ties keep their first-seen order
        lead = _blocks(keys, groups, operands, param_index)

        # Slots of the value array: inputs, parameters, constants, then group by group, each group
        # after the parameters ``lead`` places before it.  The other parameters in the order the
        # per-sample ops read them (a layer's weights, neuron by neuron), so that an op reads its
        # parameters as a view of consecutive rows, not a copy.
        slot: dict[Value, int] = {x: i for i, x in enumerate(inputs)}
        leading = [p for ps in lead.values() for p in ps]
        read: dict[Value, None] = {}
        for key in sorted(keys, key=lambda k: k[4]):  # per-sample groups first
            if key[1] != "+":
                read.update((c, None) for v in groups[key] for c in v._prev if c in param_index)
        read.update(dict.fromkeys(params))  # then the others, in their order
        lead_set = set(leading)
        region = [p for p in read if p not in lead_set]
        self._slot_params = (*region, *leading)  # (the parameters' data, as _load writes it)
        # The parameters' gradients are computed in this order too (a layer's weight gradients
        # written as one block), then put in the order of ``params``.
        grad_row = {p: i for i, p in enumerate(self._slot_params)}
        self._user_order = np.array([grad_row[p] for p in params], dtype=np.intp)
        self._pack = struct.Struct(f"{n_p}d").pack  # (see _param_data)
        slot.update((p, n_in + i) for i, p in enumerate(region))
        n_region = len(region)
        constants_ = [v for v in nodes if not v._prev and v not in slot and v not in lead_set]
        # Leaves the trace did not make from numbers: Values from outside fn, frozen unless in params.
        self.frozen_values = sum(1 for c in constants_ if c._op != CONSTANT)
        slot.update((c, n_in + n_region + i) for i, c in enumerate(constants_))
        n = n_in + n_region + len(constants_)
        for key in keys:
            for v in (*lead.get(key, ()), *groups[key]):
                slot[v] = n
                n += 1
        self._n_region = n_region
        self._lead_slots = np.array([slot[p] for p in leading], dtype=np.intp)
        self._vals: Floats = np.zeros(n)
        self._const_rows = slice(n_in + n_region, n_in + n_region + len(constants_))
        self._vals[self._const_rows] = [c.data for c in constants_]
        self._gvals: Floats = np.zeros(n)
        self._root = slot[root]
        self._gvals[self._root] = 1.0
        self._root_param = grad_row.get(root, -1)
        self._n_in, self._n_p = n_in, n_p

        # Who receives gradients, from which edges (ranks).
        incoming: dict[Value, list[int]] = {}
        for v in computed:
            for c, _, r in operands[v]:
                if needs_grad.get(c, False):
                    incoming.setdefault(c, []).append(r)

        def after_shared(c: Value, r: int) -> bool:
            """(Batched) edge ``r`` is parameter ``c``'s last contribution, the only one that
            differs between samples: the shared ones before it add up once, on one column,
            into the parameter's shared prefix, which ``BatchedStep`` adds to every sample's
            gradient afterwards (``prefix + x`` is ``x + prefix``, bit for bit)."""
            rs = incoming[c]
            return (
                self._batched
                and c in param_index
                and r == max(rs)
                and r not in shared_edges
                and all(x in shared_edges for x in rs if x != r)
            )

        prefixed: list[Value] = []  # parameters whose last contribution goes straight in

        def straight(targets: list[Value], ranks: list[int]) -> tuple[int, list[int]] | None:
            """Where contributions can go straight into their targets' gradients: each is the
            target's only one (nothing to add), unused (a constant's, an input's) or a
            parameter's last after shared ones (``after_shared``), the targets all parameters
            or all nodes whose gradients are read alike; else None."""
            if not all(len(incoming.get(c, ())) <= 1 or after_shared(c, r) for c, r in zip(targets, ranks)):
                return None
            if all(c in param_index for c in targets):
                prefixed.extend(c for c in targets if len(incoming[c]) > 1)
                return GRADS, [grad_row[c] for c in targets]
            read_first = {c in narrow for c in targets if c in incoming}  # one column only?
            if any(c in param_index for c in targets) or len(read_first) > 1:
                return None
            first_column = True in read_first
            return (G_FIRST if first_column else GVALS), [slot[c] for c in targets]

        # The programs, and where the contributions of every edge whose operand needs a gradient go:
        # straight into the gradient of a node used once, else into contribution slots to be gathered.
        edge_slot: dict[int, int] = {}  # rank -> contribution slot
        gathered_ranks: set[int] = set()  # edges that go through contribution slots
        n_contrib = 0
        self._groups: list[tuple[int, Group]] = []
        to_probe: list[tuple[Group, Value]] = []
        for key in keys:
            members = groups[key]
            start = slot[members[0]]
            if key[1] == "+":
                grp = Group(None, (), start, start + len(members))
                cols = [operands[v] for v in members]
                grp.args = [np.array([[slot[c] for c, _, _ in col] for col in cols], dtype=np.intp).T.copy()]
                signs = np.array([[s for _, s, _ in col] for col in cols]).T.copy()
                # shaped to multiply the (terms, nodes[, batch]) arrays of the replay
                grp.signs = None if (signs > 0).all() else signs.reshape(signs.shape + (1,) * self._batched)
                # the terms' rows: one block of slots (see _blocks), read as a view, else gathered;
                # a view only without signs, which the replay multiplies the terms by in place
                block = as_block(np, grp.args[0]) if grp.signs is None else None
                grp.rows = [block] if block is not None else grp.args
                if key[3]:
                    # Term by term (a row: that term of every node): the rows whose contributions can
                    # go straight into gradients, one edge per kind of destination; the others into
                    # one block of contribution slots.  Each edge: (destination, rows or slots, terms).
                    rows = list(zip(*cols))  # (terms, nodes)
                    by_kind: dict[int, tuple[list[int], list[list[int]]]] = {}
                    gathered_terms: list[int] = []
                    for t, row in enumerate(rows):
                        to = straight([c for c, _, _ in row], [r for _, _, r in row])
                        if to is None:
                            gathered_terms.append(t)
                        else:
                            terms_k, rows_k = by_kind.setdefault(to[0], ([], []))
                            terms_k.append(t)
                            rows_k.append(to[1])
                    for kind, (terms_k, rows_k) in by_kind.items():
                        grp.edges.append((kind, np.array(rows_k, dtype=np.intp), terms_k))
                    if gathered_terms:
                        size = len(gathered_terms) * len(members)
                        dest = C_FIRST if key[5] else CONTRIB
                        grp.edges.append((dest, slice(n_contrib, n_contrib + size), gathered_terms))
                        for i, t in enumerate(
                            gathered_terms
                        ):  # slot of its i-th term of node j: i * len(members) + j
                            for j, (_, _, r) in enumerate(rows[t]):
                                edge_slot[r] = n_contrib + i * len(members) + j
                                gathered_ranks.add(r)
                        n_contrib += size
            else:
                first = members[0]
                grp = Group(ops[first], templates[first], start, start + len(members))
                flags = key[3]
                grp.needs = tuple(flags[v] if is_operand else False for is_operand, v in grp.template)
                grp.args = [
                    np.array([slot[v._prev[k]] for v in members], dtype=np.intp)
                    for k in range(len(first._prev))
                ]
                # the engine's ops never write into their operands: views of consecutive rows will do
                grp.rows = [as_index(np, a) for a in grp.args] if ops[first].builtin else grp.args
                for k, flag in enumerate(flags):
                    if not flag:
                        grp.edges.append(None)
                        continue
                    to = straight([v._prev[k] for v in members], [rank[v, k] for v in members])
                    if to is not None:
                        grp.edges.append((to[0], as_index(np, to[1])))
                        continue
                    slots_k = slice(n_contrib, n_contrib + len(members))
                    grp.edges.append((C_FIRST if key[5] else CONTRIB, slots_k))
                    for j, v in enumerate(members):
                        edge_slot[rank[v, k]] = n_contrib + j
                        gathered_ranks.add(rank[v, k])
                    n_contrib += len(members)
                if not ops[first].builtin:
                    to_probe.append((grp, first))
            grp.shared, grp.narrow = key[4], key[5]
            grp.wide = not grp.shared or any(v in wide for v in members)
            self._groups.append((key[0], grp))
        self._contrib: Floats = np.zeros(n_contrib)
        # (a BatchedStep's own arrays for what the samples share, see _allocate; here the same arrays)
        self._vals1, self._gvals1, self._contrib1 = self._vals, self._gvals, self._contrib

        # Gradient gathers: each node whose contributions went to contribution slots sums them.
        gathered = {c: rs for c, rs in incoming.items() if set(rs) <= gathered_ranks}
        self._gathers: dict[int, list[Gather]] = {}
        gather = self._by_uses(gathered, edge_slot, shared_edges)
        for lvl, targets in gather(computed, level, slot, narrow, root):
            self._gathers.setdefault(lvl, []).append(targets)
        self._param_gathers = [g for _, g in gather(self._slot_params, {}, grad_row, set())]
        for g in self._param_gathers:
            g.into = "_grads"
        # (batched) the shared prefixes: the parameters' contributions before their straight last one
        before_last = {c: sorted(incoming[c])[:-1] for c in prefixed}
        prefix_gathers = self._by_uses(before_last, edge_slot, shared_edges)
        self._prefix_gathers = [g for _, g in prefix_gathers(self._slot_params, {}, grad_row, set())]
        for g in self._prefix_gathers:
            g.into = "_prefix"
        self._levels = max((lvl for lvl, _ in self._groups), default=0)
        self.num_nodes = len(nodes)  # traced nodes the loss depends on
        self.num_groups = len(self._groups)  # numpy kernels per forward pass
        self._scratch(())
        with np.errstate(all="ignore"):
            for grp, node in to_probe:
                _probe(grp, node, self._probe_shape)

    @staticmethod
    def _by_uses(
        incoming: dict[Value, list[int]], edge_slot: dict[int, int], shared_edges: set[int]
    ) -> Callable[..., Iterable[tuple[int, Gather]]]:
        """Gathers for ``nodes``: one per level, count and kind of contributions, and width."""
        np = load_numpy()

        def gathers(
            nodes: Sequence[Value],
            level: dict[Value, int],
            target: dict[Value, int],
            narrow: set[Value],
            root: Value | None = None,
        ) -> Iterable[tuple[int, Gather]]:
            buckets: dict[tuple[Any, ...], list[Value]] = {}
            for v in nodes:
                if v is not root and v in incoming:
                    # the eager backward adds a node's contributions in rank order
                    kinds = tuple(r in shared_edges for r in sorted(incoming[v]))
                    buckets.setdefault((level.get(v, 0), kinds, v not in narrow), []).append(v)
            for (lvl, kinds, wide), members in buckets.items():
                slots = [[edge_slot[r] for r in sorted(incoming[v])] for v in members]
                targets = as_index(np, [target[v] for v in members])
                yield lvl, Gather(targets, np.array(slots, dtype=np.intp).T.copy(), kinds, wide)

        return gathers

    def __repr__(self) -> str:
        return (
            f"CompiledStep(nodes={self.num_nodes}, levels={self._levels}, groups={self.num_groups}, "
            f"params={len(self.params)}, input_shapes={list(self.input_shapes)})"
        )

    # ---- running -------------------------------------------------------------------------------

    def _load(self, inputs: tuple[Any, ...]) -> None:
        if len(inputs) != len(self.input_shapes):
            raise ValueError(
                f"the step was traced with {len(self.input_shapes)} inputs, got {len(inputs)}; "
                "the graph is fixed at trace time"
            )
        vals, at = self._vals, 0
        for i, (x, shape, size) in enumerate(zip(inputs, self.input_shapes, self._input_sizes)):
            arr = as_array(x, f"input {i}")
            if arr.shape != shape:
                raise ValueError(
                    f"input {i} has shape {arr.shape}, but the step was traced with shape {shape}; "
                    "the graph is fixed at trace time, so compile again for another shape"
                )
            vals[at : at + size] = arr.ravel()
            at += size
        self._put_params(vals, self._param_data())

    def _scratch(self, tail: tuple[int, ...]) -> None:
        """The arrays a step reuses from call to call, for rows of shape ``tail`` (``(batch,)``):
        each group's gathered operands, and the parameters' gradients.  Fresh arrays of a batch's
        size at every step would cost more than the copies into them (the allocator hands large
        ones back to the system and page-faults them in again)."""
        np = load_numpy()
        vals, first = self._vals, self._vals1
        for _, grp in self._groups:
            width = (1,) * len(tail) if grp.shared else tail  # a shared group: one column
            grp.scratch = [None if type(r) is slice else np.empty(r.shape + width) for r in grp.rows]
            # views of the value arrays, made once per allocation rather than at every step
            src = first if grp.shared else vals
            grp.views = [src[r] if type(r) is slice else None for r in grp.rows]
            grp.dest = src[grp.start : grp.stop]
            # (batched) a shared group's values copied to every sample, for the per-sample ops that read them
            grp.spread = vals[grp.start : grp.stop] if grp.shared and grp.wide and first is not vals else None
            # an ordered sum adds straight into its rows when they hold exactly its result
            same = grp.fn is None and grp.dest.flags.c_contiguous
            grp.flat = grp.dest.reshape(-1) if same else None
        # One gradient per parameter (batched: per parameter and sample), rows no gradient reaches
        # stay 0.  Batched, they are the transposed view of an array with one row per sample, the
        # layout in which the samples add up in order: the writes of the backward transpose them.
        self._by_sample: Floats = np.zeros((*tail, self._n_p))
        self._grads: Floats = self._by_sample.T
        # (batched) added to every sample's parameter gradients; -0.0 adds nothing, signed zeros included
        self._prefix: Floats = np.full((self._n_p, 1), -0.0)
        gvals, contrib = self._gvals, self._contrib
        to = (contrib, self._contrib1, gvals, self._gvals1, self._grads)  # by CONTRIB, ...
        for _, grp in self._groups:
            if not any(grp.edges):
                grp.g, grp.into = None, []
                continue
            grp.g = (to[G_FIRST] if grp.narrow else gvals)[grp.start : grp.stop]
            if grp.fn is None:  # an ordered sum: (array, key, signs of its terms) per edge
                grp.into = []
                for dest, rows, terms in grp.edges:  # type: ignore[misc]
                    signs = None if grp.signs is None or (grp.signs[terms] > 0).all() else grp.signs[terms]
                    # contribution slots, or rows of gradients that form one block (see _blocks)
                    rows = rows if type(rows) is slice else as_block(np, rows) or rows
                    if type(rows) is slice:  # (terms, nodes[, batch]): a view
                        block = to[dest][rows].reshape(len(terms), grp.stop - grp.start, *to[dest].shape[1:])
                        assert np.shares_memory(block, to[dest])  # (writes must land)
                        grp.into.append((block, ..., signs))
                    else:  # (terms, nodes) rows of gradients
                        grp.into.append((to[dest], rows, signs))
                continue
            # where each operand's contributions go: (array, key), the key ``...`` for a view of them
            grp.into = [
                None if edge is None else write_to(np, to[edge[0]], edge[1], tail) for edge in grp.edges
            ]
        c_first, g_first = self._contrib1, self._gvals1
        gathers = [
            *self._param_gathers,
            *self._prefix_gathers,
            *(g for gs in self._gathers.values() for g in gs),
        ]
        for gather in gathers:
            shared = gather.shared
            gather.dest = getattr(self, gather.into) if gather.into else gvals if gather.wide else g_first
            rows = gather.targets
            gather.view = gather.dest[rows] if type(rows) is slice else None
            gather.flat = None
            if len(set(shared)) == 1 and len(shared) > 1:  # one reduction over the uses
                gather.lead = -1
                gather.src = c_first if shared[0] else contrib
                gather.scratch = np.empty(gather.slots.shape + ((1,) * len(tail) if shared[0] else tail))
                view = gather.view
                if view is not None and view.shape[1:] == gather.src.shape[1:] and view.flags.c_contiguous:
                    gather.flat = view.reshape(-1)
            else:  # the leading contributions the samples share, added up on one column, then the rest
                gather.lead = shared.index(False) if False in shared else len(shared)
                gather.src = c_first
        self._read_at_source(gathers)
        self._programs()

    def _read_at_source(self, gathers: list[Gather]) -> None:
        """A gather of contributions that are all one engine op's gradients for one operand reads
        them from the gradients the op's group keeps (``Group.kept``), and the group's backward
        writes no copy of them into the contribution slots.  (The engine's ops give arrays of
        floats, or numbers that broadcast; a user op's gradients are copied, so converted.)"""
        np = load_numpy()
        readers = np.full(len(self._contrib), -1)  # slot -> the gather that reads it (-2: several)
        for i, gather in enumerate(gathers):
            gather.source = None
            slots = gather.slots.ravel()
            readers[slots] = np.where(readers[slots] == -1, i, -2)
        for _, grp in self._groups:
            if grp.fn is None or not grp.fn.builtin:
                continue
            for k, edge in enumerate(grp.edges):
                if edge is None or edge[0] != CONTRIB or type(edge[1]) is not slice:
                    continue
                block = edge[1]
                who = set(readers[block].tolist())
                if len(who) != 1 or min(who) < 0:
                    continue
                gather = gathers[who.pop()]
                if gather.lead >= 0 or not (
                    block.start <= gather.slots.min() and gather.slots.max() < block.stop
                ):
                    continue
                gather.source = (grp, grp.positions[k], gather.slots - block.start)
                grp.into[k] = None

    def _put_params(self, vals: Floats, data: Floats) -> None:
        """The parameters' data into their slots: most in one block after the inputs, those
        that ``_blocks`` placed before a group's nodes by index."""
        at, n = self._n_in, self._n_region
        vals[at : at + n] = data[:n]
        if n < len(data):
            vals[self._lead_slots] = data[n:]

    def _param_data(self) -> Floats:
        """The parameters' current ``.data``, read at every call, in the order of their slots: packed
        as C doubles (a number converts as ``float()`` converts it), in half of ``fromiter``'s time."""
        data = [p.data for p in self._slot_params]
        try:
            packed = self._pack(*data)
        except (TypeError, ValueError, OverflowError, struct.error):
            for p, x in zip(self._slot_params, data):
                try:
                    struct.pack("d", x)
                except (TypeError, ValueError, OverflowError, struct.error) as exc:
                    raise TypeError(
                        f"params[{self.params.index(p)}].data is {reprlib.repr(x)}, which is not a float "
                        f"({exc}); a compiled step reads each parameter's .data as a float at every call"
                    ) from None
            raise
        return load_numpy().frombuffer(packed)  # type: ignore[no-any-return]

    def _programs(self) -> None:
        """The passes as lists of steps, one per group or gather, in the order they run, each
        with its arrays bound (made once per allocation, so that a call only runs them).

        Forward: level by level.  The value arrays hold one number per slot, or (batched) one
        row of numbers per slot, one per sample; a group whose values the samples share
        runs on the arrays of one column.  Backward: level by level from the loss, each
        level's gathers, then its groups (a shared group's on one column), then the gathers
        of the parameters' gradients, in the eager order."""
        vals, first = self._vals, self._vals1
        self._forward_steps = [grp.forward_step(first if grp.shared else vals) for _, grp in self._groups]
        steps: list[Callable[[], None]] = []
        groups = self._groups
        i = len(groups) - 1
        for lvl in range(self._levels, 0, -1):
            steps += [self._gather_step(gather) for gather in self._gathers.get(lvl, ())]
            while i >= 0 and groups[i][0] == lvl:
                grp = groups[i][1]
                i -= 1
                if grp.g is not None:  # (None: no operand needs a gradient)
                    steps.append(grp.backward_step())
        steps += [self._gather_step(gather) for gather in (*self._param_gathers, *self._prefix_gathers)]
        self._backward_steps = steps

    def _gather_step(self, gather: Gather) -> Callable[[], None]:
        """``gather`` as a step: ``_gather``, or, reading at the source, the op's gradients."""
        if gather.source is None:
            return partial(self._gather, gather)
        np = load_numpy()
        grp, i, slots = gather.source
        shape = (grp.stop - grp.start, *self._contrib.shape[1:])  # the op's gradients for one operand

        def run() -> None:
            dx = grp.kept[i]
            if type(dx) is not np.ndarray or dx.shape != shape:  # None (no gradient: -0.0), or a number
                dx = np.broadcast_to(-0.0 if dx is None else dx, shape)
            sum_uses(np, gather, dx, slots)

        return run

    def _forward(self) -> None:
        """Every group's values."""
        for run in self._forward_steps:
            run()

    def _gather(self, gather: Gather) -> None:
        """The gradients of ``gather``'s nodes into their rows of ``gather.dest``: each the ordered
        sum of its contributions, first to last (a contribution the samples share is one column)."""
        np = load_numpy()
        slots, lead, dest, rows = gather.slots, gather.lead, gather.dest, gather.targets
        if lead < 0:  # one kind: one reduction over the uses
            sum_uses(np, gather, gather.src, slots)
            return
        # Mixed, or one use: added in place, left to right, the leading shared ones on one column
        # (-0.0 + x is x, and a + b is b + a, bit for bit: the same sums as ordered_sum's).
        first, contrib = gather.src, self._contrib
        total = first.take(slots[0], axis=0) if lead else None
        for row in slots[1:lead]:
            total = total + first.take(row, axis=0)
        if lead == len(slots):
            dest[rows] = total
            return
        out = gather.view if gather.view is not None else np.empty((len(rows), *dest.shape[1:]))
        contrib.take(slots[lead], axis=0, out=out, mode="clip")  # (in range: clip changes nothing)
        if total is not None:
            out += total
        for row, same in zip(slots[lead + 1 :], gather.shared[lead + 1 :]):
            out += (first if same else contrib).take(row, axis=0)
        if gather.view is None:
            dest[rows] = out

    def _backward(self) -> Floats:
        """The parameters' gradients (batched: one column per sample), in the eager order."""
        for run in self._backward_steps:
            run()
        grads = self._grads
        if self._root_param >= 0:
            grads[self._root_param] = 1.0
        return grads

    def __call__(self, *inputs: Any) -> tuple[float, Floats]:
        """Forward and backward for these inputs and the parameters' current ``.data``:
        ``(loss, grads)``, one gradient per parameter (a new array)."""
        np = load_numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):  # inf and nan are results here, as in the engine
            self._forward()
            grads = self._backward()[self._user_order]  # (a copy)
        return float(self._vals[self._root]), grads

    def forward(self, *inputs: Any) -> float:
        """The loss only, for these inputs and the parameters' current ``.data``."""
        np = load_numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):
            self._forward()
        return float(self._vals[self._root])

    def backward(self, *inputs: Any) -> float:
        """Like ``loss.backward()`` on the eager graph: add each gradient into its parameter's
        ``.grad`` (so zero them between steps, e.g. ``optimizer.zero_grad()``); returns the loss."""
        loss, grads = self(*inputs)
        for p, g in zip(self.params, grads.tolist()):
            grad = p.grad  # as backward() adds: 0.0 counts as none yet, so -0.0 keeps its sign
            p.grad = grad + g if grad else g
        return loss


class BatchedStep(CompiledStep):
    """A loss traced on one sample, replayed over a batch of any size; made by
    ``compile(..., batched=True)``.

    The plan is the unbatched one; each slot of the value arrays becomes a row of
    ``batch`` numbers, one per sample (values shaped ``(nodes, batch)``), so that every
    group's op runs its own ``forward`` and ``backward`` once on 2-D arrays of shape
    ``(group size, batch)`` and each sample's numbers are those of the eager engine on
    that sample, bit for bit.  Parameters and constants are the same for every sample.
    A sample's parameter gradients add up in the eager order; then the samples' losses
    and gradients add up first sample to last, as a loop of ``loss.backward()`` calls
    over the samples adds them into ``.grad``, and with ``reduction="mean"`` are divided
    by the batch size.  A new batch size reallocates the arrays, nothing more.
    """

    _probe_shape = (2, 2)
    _batched = True

    def __init__(
        self,
        root: Value,
        inputs: list[Value],
        shapes: list[tuple[int, ...]],
        params: list[Value],
        reduction: str = "mean",
    ) -> None:
        super().__init__(root, inputs, shapes, params)
        self.reduction = reduction
        self._constant_data = self._vals[self._const_rows].copy()
        self._slots, self._n_contrib = len(self._vals), len(self._contrib)
        self.batch_size = 0  # of the last call: the arrays' width

    def __repr__(self) -> str:
        return (
            f"BatchedStep(nodes={self.num_nodes}, levels={self._levels}, groups={self.num_groups}, "
            f"params={len(self.params)}, sample_shapes={list(self.input_shapes)}, "
            f"reduction={self.reduction!r})"
        )

    def _allocate(self, batch: int) -> None:
        if batch == self.batch_size:
            return
        np = load_numpy()
        self._vals = np.zeros((self._slots, batch))
        self._gvals = np.zeros((self._slots, batch))
        self._contrib = np.zeros((self._n_contrib, batch))
        # what the samples share, in arrays of one column of their own (contiguous, unlike a column
        # of the arrays above): the shared groups' values, gradients and contributions
        self._vals1, self._gvals1, self._contrib1 = (
            np.zeros((len(a), 1)) for a in (self._vals, self._gvals, self._contrib)
        )
        for vals in (self._vals, self._vals1):
            vals[self._const_rows] = self._constant_data[:, None]
        for gvals in (self._gvals, self._gvals1):
            gvals[self._root] = 1.0
        self._scratch((batch,))
        self.batch_size = batch

    def _load(self, inputs: tuple[Any, ...]) -> None:
        if len(inputs) != len(self.input_shapes):
            raise ValueError(
                f"the step was traced with {len(self.input_shapes)} inputs, got {len(inputs)}; "
                "the graph is fixed at trace time"
            )
        arrays = [as_array(x, f"input {i}") for i, x in enumerate(inputs)]
        batch = -1
        for i, (arr, shape) in enumerate(zip(arrays, self.input_shapes)):
            if arr.shape[1:] != shape or arr.ndim != len(shape) + 1:
                hint = " (one sample: give a batch of one, e.g. x[None] or [x])" if arr.shape == shape else ""
                wanted = "(batch" + "".join(f", {d}" for d in shape) + ("" if shape else ",") + ")"
                raise ValueError(
                    f"input {i} has shape {arr.shape}, but a batched step takes a batch of samples of the "
                    f"traced shape {shape}, i.e. an array of shape {wanted}{hint}"
                )
            if batch >= 0 and arr.shape[0] != batch:
                raise ValueError(
                    f"input {i} holds {arr.shape[0]} samples but input 0 holds {batch}; "
                    "every input needs the same batch size"
                )
            batch = arr.shape[0]
        if batch == 0:
            raise ValueError("the batch is empty (0 samples); give at least one sample")
        self._allocate(batch)
        vals, at = self._vals, 0
        for arr, size in zip(arrays, self._input_sizes):
            vals[at : at + size] = arr.reshape(batch, size).T
            at += size
        data = self._param_data()[:, None]
        self._put_params(vals, data)
        self._put_params(self._vals1, data)

    def _reduce(self, per_sample: Floats) -> Floats:
        """Rows of ``per_sample`` (one per sample) added first to last, then the reduction."""
        np = load_numpy()
        total = ordered_sum(np, per_sample) if per_sample.shape[1] else np.zeros(0)
        return total / self.batch_size if self.reduction == "mean" else total

    def __call__(self, *inputs: Any) -> tuple[float, Floats]:
        """Forward and backward over a batch (each input with a leading batch axis) for the
        parameters' current ``.data``: ``(loss, grads)``, the mean (``reduction="mean"``)
        or sum over the samples of the loss and of each parameter's gradient."""
        np = load_numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):  # inf and nan are results here, as in the engine
            self._forward()
            self._backward()
            by_sample = self._by_sample  # the gradients, one row per sample
            if self._prefix_gathers:
                by_sample += self._prefix[:, 0]
            grads = self._reduce(by_sample)[self._user_order]
            loss = self._reduce(self._vals[self._root][:, None])
        return float(loss[0]), grads

    def forward(self, *inputs: Any) -> float:
        """The loss only (the batch's mean or sum), for these inputs and the parameters' ``.data``."""
        np = load_numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):
            self._forward()
            loss = self._reduce(self._vals[self._root][:, None])
        return float(loss[0])
