"""Compiled replay: trace a scalar loss once, then replay it as a few numpy array ops per step.

A training step builds the same graph every time; only the numbers change.
``compile`` calls the loss function once on Values (the trace), records the
graph, and turns it into a short program over numpy arrays: the nodes are
grouped by topological level and op, so one numpy call computes every node of
a group (operands are gathered with index arrays), and a left chain of
additions (``sum(...)``, a neuron's ``w . x + b``) becomes one ordered sum.
The backward pass replays the engine's derivative rules on those arrays.  No
Value is made and no per-node Python runs during a step.

The results are the eager engine's: sums add their terms in the same order
and gradients from several uses of a node add up in the same order as
``backward`` adds them, so only numpy's own last-bit differences in
``exp``/``log``/``sin``/... (and the sign of a zero) remain.

The graph is fixed when traced, as with ``torch.jit.trace``: Python control
flow that reads ``.data`` (``if x > 0``, ``max(...)`` of Values, a loop over a
data-dependent count) is replayed as it went during the trace; comparing
Values, ``float(v)`` or ``v.item()`` during the trace warns (``TracerWarning``),
a direct read of ``.data`` cannot be seen.  Only the
inputs (passed at each call) and the parameters (read from their ``.data`` at
each call) change; every other leaf, e.g. a number lifted into a constant, is
frozen.  numpy is imported only here, when compiling.

>>> from micrograd import Value
>>> w = Value(0.5)
>>> step = compile(lambda x, y: ((w * x - y) ** 2), (1.0, 2.0), params=[w])
>>> loss, grads = step(3.0, 0.0)        # (0.5 * 3 - 0)**2, and 2 * 1.5 * 3
>>> loss, grads.tolist()
(2.25, [9.0])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from threading import get_ident
from types import CodeType
from typing import TYPE_CHECKING, Any, NamedTuple

from .autograd import topological_order
from .engine import (
    Value,
    _elu_rule,
    _leaky_relu_rule,
    _pow_by_constant_rule,
    _softplus_rule,
    _sum_rule,
    _tracing_threads,
)
from .grad_mode import enable_grad

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Indices = NDArray[np.intp]

__all__ = ["CompileError", "CompiledStep", "TracerWarning", "compile"]


class TracerWarning(UserWarning):
    """The traced function turned a Value into a Python bool or float: whatever it
    decided with it is fixed in the compiled step (``torch.jit.TracerWarning``'s role)."""


class CompileError(TypeError):
    """The traced graph holds something that cannot be replayed (e.g. an op with a custom rule)."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:
        raise ImportError("micrograd.compile needs numpy: pip install numpy") from e
    return numpy


# ---- the op table ----------------------------------------------------------------------------


class _Op(NamedTuple):
    """How to replay one engine op on arrays."""

    name: str
    params: tuple[str, ...]  # the parameters the engine binds to its rule (e.g. "slope"), in order
    forward: Callable[..., Any]  # forward(p, *operands) -> out; p: the parameter values
    backward: Callable[..., tuple[Any, ...]]  # backward(p, g, out, *operands) -> one gradient each


def _engine_rule(rule: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
    """The engine's own rule: it is written with operators, so it works on arrays as it is."""
    return lambda p, g, out, *xs: rule(*p, g, out, *xs)


# Sums (a + b, a - b, micrograd.sum): the sign each operand after the first enters with.
_SUM_RULES: dict[CodeType, float] = {
    Value._add_rule.__code__: 1.0,
    Value._sub_rule.__code__: -1.0,  # a - b is a + -1 * b, exactly
    _sum_rule.__code__: 1.0,
}

_OPS: dict[CodeType, _Op] = {}


def _op_table() -> dict[CodeType, _Op]:
    """engine rule (by its code; a parameterised rule by its function's) -> how to replay it.

    A rule that branches on data (``0.0 if out <= 0 else g``) gets a vectorised
    twin here, written with the same float operations in the same order."""
    if _OPS:
        return _OPS
    np = _numpy()
    inf = np.inf

    def cpow(a: Any, b: float) -> Any:
        # C's pow, as fmath.pow: numpy takes sqrt for a scalar exponent 0.5, which gives nan
        # at -inf and -0.0 at -0.0, where pow gives inf and +0.0.
        r = np.power(a, b)
        return np.where(a == -inf, inf, r + 0.0) if b == 0.5 else r

    def sign(a: Any) -> Any:
        return (a > 0.0).astype(np.float64) - (a < 0.0)  # 0 for nan, as fmath.sign

    def softplus(p: Any, a: Any) -> Any:
        beta, threshold = p
        bx = a * beta
        return np.where(bx > threshold, a, np.log1p(np.exp(bx)) / beta)

    def softplus_grad(p: Any, g: Any, out: Any, a: Any) -> tuple[Any, ...]:
        beta, threshold = p
        z = np.exp(a * beta)
        return (np.where(a * beta > threshold, g, g * z / (z + 1)),)

    def pow_grad(p: Any, g: Any, out: Any, a: Any, b: Any) -> tuple[Any, ...]:
        ga = np.where(b == 0.0, 0.0, g * (b * np.power(a, b - 1)))
        gb = np.where((a == 0.0) & (b >= 0.0), g * 0.0, g * (out * np.log(a)))
        return ga, gb

    # (the engine's rule, op, the parameters bound to it, forward, backward: None = the engine's rule)
    rows: list[tuple[Callable[..., Any], str, tuple[str, ...], Callable[..., Any], Any]] = [
        (Value._mul_rule, "*", (), lambda p, a, b: a * b, None),
        (Value._div_rule, "/", (), lambda p, a, b: a / b, None),
        (Value._pow_rule, "**", (), lambda p, a, b: np.power(a, b), pow_grad),
        (
            _pow_by_constant_rule,
            "**n",
            ("n",),
            lambda p, a: cpow(a, p[0]),
            lambda p, g, out, a: (0.0 if p[0] == 0.0 else g * (p[0] * cpow(a, p[0] - 1)),),
        ),
        (Value._neg_rule, "neg", (), lambda p, a: -a, None),
        (Value._abs_rule, "abs", (), lambda p, a: np.abs(a), lambda p, g, out, a: (g * sign(a),)),
        (Value._exp_rule, "exp", (), lambda p, a: np.exp(a), None),
        (Value._log_rule, "log", (), lambda p, a: np.log(a), None),
        (Value._sqrt_rule, "sqrt", (), lambda p, a: np.sqrt(a), None),
        (Value._tanh_rule, "tanh", (), lambda p, a: np.tanh(a), None),
        (Value._sigmoid_rule, "sigmoid", (), lambda p, a: 1.0 / (1.0 + np.exp(-a)), None),
        (
            Value._relu_rule,
            "ReLU",
            (),
            lambda p, a: np.where(a < 0.0, 0.0, a),
            lambda p, g, out, a: (np.where(out <= 0.0, 0.0, g),),
        ),
        (
            _leaky_relu_rule,
            "leaky_relu",
            ("slope",),
            lambda p, a: np.where(a > 0.0, a, a * p[0]),
            lambda p, g, out, a: (np.where(a > 0.0, g, g * p[0]),),
        ),
        (
            _elu_rule,
            "elu",
            ("alpha",),
            lambda p, a: np.where(a > 0.0, a, np.expm1(a) * p[0]),
            lambda p, g, out, a: (np.where(a > 0.0, g, g * p[0] * np.exp(a)),),
        ),
        (_softplus_rule, "softplus", ("beta", "threshold"), softplus, softplus_grad),
        (Value._sin_rule, "sin", (), lambda p, a: np.sin(a), lambda p, g, out, a: (g * np.cos(a),)),
        (Value._cos_rule, "cos", (), lambda p, a: np.cos(a), lambda p, g, out, a: (g * -np.sin(a),)),
    ]
    for rule, name, params, forward, backward in rows:
        _OPS[rule.__code__] = _Op(name, params, forward, backward or _engine_rule(rule))
    return _OPS


def _rule_code(rule: Callable[..., Any]) -> CodeType:
    """The code of an engine rule; a parameterised rule is a functools.partial of one."""
    return (rule.func if isinstance(rule, functools.partial) else rule).__code__


def _rule_params(node: Value, op: _Op) -> tuple[float, ...]:
    """The parameters (exponent, slope, ...) the engine bound to a node's rule."""
    if not op.params:
        return ()
    rule = node._rule
    args = rule.args if isinstance(rule, functools.partial) else ()
    if len(args) != len(op.params):
        raise CompileError(f"cannot read the parameters {op.params} of op {node._op!r} from its rule")
    return tuple(float(a) for a in args)


# ---- tracing -----------------------------------------------------------------------------------


def _as_array(x: object, what: str) -> Floats:
    np = _numpy()
    try:
        arr: Floats = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"{what} must be a number, a (nested) list of numbers or a numpy array, "
            f"got {type(x).__name__}: {e}"
        ) from None
    return arr


def _nest(values: list[Value], shape: tuple[int, ...]) -> Any:
    """Values in nested lists of ``shape``, as ``ndarray.tolist()`` would nest numbers."""
    if not shape:
        return values[0]
    if len(shape) == 1:
        return values
    step = len(values) // shape[0] if shape[0] else 0
    return [_nest(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def compile(  # noqa: A001 - micrograd.compile, as torch.compile
    fn: Callable[..., Value],
    example_inputs: Any,
    params: Iterable[Value] = (),
) -> CompiledStep:
    """Trace ``fn`` once on ``example_inputs`` and return a step that replays it with numpy.

    ``example_inputs`` is a tuple of positional arguments (anything else is one
    argument, as in ``torch.jit.trace``); each is a number, a (nested) list of
    numbers or a numpy array, and ``fn`` receives it as a Value or as nested
    lists of Values of the same shape.  ``fn`` must return one Value, the loss.
    ``params`` are the leaf Values ``fn`` reads from outside (a model's
    weights): the step reads their current ``.data`` at every call and returns
    the gradient for each.  Any other leaf is frozen at its traced value.

    ``step(*inputs)`` returns ``(loss, grads)``, a float and a numpy array of
    one gradient per parameter; ``step.backward(*inputs)`` adds the gradients
    into each parameter's ``.grad`` instead, as ``loss.backward()`` does, so
    an ``nn.optim`` optimizer can step; ``step.forward(*inputs)`` gives the loss
    only.  Inputs must have the traced shapes.

    >>> from micrograd import Value
    >>> a, b = Value(2.0), Value(-1.0)
    >>> step = compile(lambda xs: sum((a * x + b).relu() for x in xs), ([1.0, 2.0],), params=[a, b])
    >>> loss, grads = step([3.0, 0.25])   # relu(5) + relu(-0.5)
    >>> loss, grads.tolist()
    (5.0, [3.0, 1.0])
    """
    if not callable(fn):
        raise TypeError(f"compile() needs a function to trace, got {type(fn).__name__}")
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    arrays = [_as_array(x, f"example input {i}") for i, x in enumerate(args)]
    param_list: list[Value] = [params] if isinstance(params, Value) else list(params)
    for i, p in enumerate(param_list):
        if not isinstance(p, Value):
            raise TypeError(f"params[{i}] must be a Value, got {type(p).__name__}: {p!r}")
        if p._rule is not None:
            raise ValueError(
                f"params[{i}] is the output of op {p._op!r}, not a leaf; parameters must be leaf Values"
            )
    if len(set(param_list)) != len(param_list):
        raise ValueError("params holds the same Value more than once")

    inputs = [Value(x) for arr in arrays for x in arr.ravel().tolist()]
    nested, start = [], 0
    for arr in arrays:
        nested.append(_nest(inputs[start : start + arr.size], arr.shape))
        start += arr.size
    tracer = get_ident()
    outermost = tracer not in _tracing_threads
    _tracing_threads.add(tracer)  # comparisons and float() of Values warn while tracing
    try:
        with enable_grad():
            root = fn(*nested)
    finally:
        if outermost:
            _tracing_threads.discard(tracer)
    if not isinstance(root, Value):
        raise TypeError(f"the traced function must return a Value (the loss), got {type(root).__name__}")
    return CompiledStep(root, inputs, [a.shape for a in arrays], param_list)


# ---- the compiled program ---------------------------------------------------------------------


class _Group:
    """Nodes of one level with the same op and parameters: one numpy call forward, one backward.

    ``args`` holds one index array per operand (a sum: one (terms, nodes) matrix);
    the outputs occupy the slots ``start:stop``; ``edges[k]`` is the range of
    contribution slots that receives operand k's gradients (None: not needed)."""

    __slots__ = ("args", "backward", "edges", "forward", "p", "saved", "signs", "start", "stop")

    def __init__(self, op: _Op | None, p: tuple[float, ...], start: int, stop: int) -> None:
        self.forward = op.forward if op else None
        self.backward = op.backward if op else None
        self.p = p
        self.start, self.stop = start, stop
        self.args: list[Indices] = []
        self.signs: Floats | None = None
        self.edges: list[tuple[int, int] | None] = []
        self.saved: tuple[Any, ...] = ()


class _Gather(NamedTuple):
    """Gradients of several nodes, each the ordered sum of its contribution slots."""

    targets: Indices  # where the sums go
    slots: Indices  # (uses, nodes): contribution slots, in the order backward adds them


def _ordered_sum(np: Any, m: Floats, from_zero: bool = False) -> Floats:
    """The rows of ``m`` added first to last, as a chain of ``+`` adds them; ``from_zero``
    starts at 0.0 as ``backward`` does (so that no gradient is -0.0), else at -0.0, the
    identity.  numpy reduces the outer axis of a C-ordered array row by row, a single
    column pairwise (hence accumulate)."""
    if m.shape[0] > 1 and m.shape[1] > 1:
        return np.add.reduce(m, axis=0, initial=0.0 if from_zero else -0.0)  # type: ignore[no-any-return]
    row: Floats = m[0] if m.shape[0] == 1 else np.add.accumulate(m[:, 0])[-1:]
    return row + 0.0 if from_zero else row


class CompiledStep:
    """A traced loss function replayed with numpy; made by ``compile``.

    Not thread-safe: a step keeps its arrays between calls (compile one per thread).
    """

    def __init__(
        self, root: Value, inputs: list[Value], shapes: list[tuple[int, ...]], params: list[Value]
    ) -> None:
        np = _numpy()
        table = _op_table()
        self.num_nodes = self.num_groups = self._levels = 0  # (set below; here for repr)
        self.params: tuple[Value, ...] = tuple(params)
        self.input_shapes: tuple[tuple[int, ...], ...] = tuple(shapes)
        self._input_sizes = [int(np.prod(s, dtype=np.intp)) for s in shapes]
        n_in, n_p = len(inputs), len(params)
        param_index = {p: i for i, p in enumerate(params)}
        input_index = {x: i for i, x in enumerate(inputs)}
        order = topological_order(root)

        # Live nodes: those the loss is computed from through ops with rules.
        live = {root}
        for node in reversed(order):
            if node in live and node._rule is not None and node not in param_index:
                live.update(node._prev)
        nodes = [v for v in order if v in live]
        ops: dict[Value, _Op] = {}
        for v in nodes:
            if v._rule is None or v in param_index or v in input_index:
                continue
            code = _rule_code(v._rule)
            if code not in _SUM_RULES:
                if code not in table:
                    supported = sorted({"+", "-"} | {o.name for o in table.values()})
                    rule_name = getattr(v._rule, "__qualname__", repr(v._rule))
                    raise CompileError(
                        f"cannot replay op {v._op!r} (rule {rule_name}): compile supports the engine's "
                        f"ops {supported}; a custom rule needs the eager engine"
                    )
                ops[v] = table[code]
        # The eager backward's order: reverse topological, operands in order. Each (node, operand)
        # edge gets its rank, so that a node's gradient adds its contributions in the same order.
        uses: dict[Value, int] = dict.fromkeys(nodes, 0)
        rank: dict[tuple[Value, int], int] = {}
        for v in reversed(nodes):
            if v._rule is not None and v not in param_index and v not in input_index:
                for k, c in enumerate(v._prev):
                    uses[c] += 1
                    rank[v, k] = len(rank)

        # Fuse left chains of +, - and micrograd.sum, each link the first operand of the next and
        # used only there, into one ordered sum: the eager floats, with the links gone.
        terms: dict[Value, list[tuple[Value, float, int]]] = {}  # node -> (term, sign, rank)
        for v in nodes:
            if v in ops or v._rule is None or v in param_index or v in input_index:
                continue
            first, *rest = v._prev
            sign = _SUM_RULES[_rule_code(v._rule)]
            fuse = first in terms and uses[first] == 1
            chain = terms.pop(first) if fuse else [(first, 1.0, rank[v, 0])]
            chain += [(c, sign, rank[v, k]) for k, c in enumerate(rest, 1)]
            terms[v] = chain
        operands: dict[Value, list[tuple[Value, float, int]]] = dict(terms)
        for v in ops:
            operands[v] = [(c, 1.0, rank[v, k]) for k, c in enumerate(v._prev)]
        computed = [v for v in nodes if v in operands]  # topological order, fused links gone

        needs_grad: dict[Value, bool] = {p: True for p in params}
        level: dict[Value, int] = {}
        for v in computed:
            level[v] = 1 + max(level.get(c, 0) for c, _, _ in operands[v])
            needs_grad[v] = any(needs_grad.get(c, False) for c, _, _ in operands[v])

        # Group: same level, op, parameters and (for backward) which operands need gradients.
        groups: dict[tuple[Any, ...], list[Value]] = {}
        for v in computed:
            if v in ops:
                op = ops[v]
                flags = tuple(needs_grad.get(c, False) for c in v._prev)
                key: tuple[Any, ...] = (level[v], op.name, _rule_params(v, op), flags)
            else:
                key = (level[v], "+", len(operands[v]), needs_grad[v])
            groups.setdefault(key, []).append(v)
        keys = sorted(groups, key=lambda k: k[0])  # stable: ties keep their first-seen order

        # Slots of the value array: inputs, parameters, constants, then group by group.
        slot: dict[Value, int] = {x: i for i, x in enumerate(inputs)}
        slot.update((p, n_in + i) for i, p in enumerate(params))
        constants = [v for v in nodes if v._rule is None and v not in slot]
        slot.update((c, n_in + n_p + i) for i, c in enumerate(constants))
        n = n_in + n_p + len(constants)
        for key in keys:
            for v in groups[key]:
                slot[v] = n
                n += 1
        self._vals: Floats = np.zeros(n)
        self._vals[n_in + n_p : n_in + n_p + len(constants)] = [c.data for c in constants]
        self._gvals: Floats = np.zeros(n)
        self._root = slot[root]
        self._gvals[self._root] = 1.0
        self._root_param = param_index.get(root, -1)
        self._n_in, self._n_p = n_in, n_p

        # The programs, and the contribution slots of every edge whose operand needs a gradient.
        edge_slot: dict[int, int] = {}  # rank -> contribution slot
        n_contrib = 0
        self._groups: list[tuple[int, _Group]] = []
        for key in keys:
            members = groups[key]
            start = slot[members[0]]
            if key[1] == "+":
                grp = _Group(None, (), start, start + len(members))
                cols = [operands[v] for v in members]
                grp.args = [np.array([[slot[c] for c, _, _ in col] for col in cols], dtype=np.intp).T.copy()]
                signs = np.array([[s for _, s, _ in col] for col in cols]).T.copy()
                grp.signs = None if (signs > 0).all() else signs
                if key[3]:
                    size = signs.size
                    grp.edges = [(n_contrib, n_contrib + size)]
                    for j, col in enumerate(cols):  # slot of term t of node j: t * len(members) + j
                        for t, (_, _, r) in enumerate(col):
                            edge_slot[r] = n_contrib + t * len(members) + j
                    n_contrib += size
            else:
                op = ops[members[0]]
                grp = _Group(op, key[2], start, start + len(members))
                arity = len(members[0]._prev)
                grp.args = [
                    np.array([slot[v._prev[k]] for v in members], dtype=np.intp) for k in range(arity)
                ]
                for k, flag in enumerate(key[3]):
                    if not flag:
                        grp.edges.append(None)
                        continue
                    grp.edges.append((n_contrib, n_contrib + len(members)))
                    for j, v in enumerate(members):
                        edge_slot[rank[v, k]] = n_contrib + j
                    n_contrib += len(members)
            self._groups.append((key[0], grp))
        self._contrib: Floats = np.zeros(n_contrib)

        # Gradient gathers: each node that needs one (but the root) sums its incoming edges.
        incoming: dict[Value, list[int]] = {}
        for v in computed:
            for c, _, r in operands[v]:
                if needs_grad.get(c, False):
                    incoming.setdefault(c, []).append(r)
        self._gathers: dict[int, list[_Gather]] = {}
        for lvl, targets in self._by_uses(incoming, computed, level, slot, edge_slot, root):
            self._gathers.setdefault(lvl, []).append(targets)
        self._param_gathers = [
            g for _, g in self._by_uses(incoming, params, {}, {p: i for i, p in enumerate(params)}, edge_slot)
        ]
        self._levels = max((lvl for lvl, _ in self._groups), default=0)
        self.num_nodes = len(nodes)  # traced nodes the loss depends on
        self.num_groups = len(self._groups)  # numpy kernels per forward pass

    @staticmethod
    def _by_uses(
        incoming: dict[Value, list[int]],
        nodes: Sequence[Value],
        level: dict[Value, int],
        target: dict[Value, int],
        edge_slot: dict[int, int],
        root: Value | None = None,
    ) -> Iterable[tuple[int, _Gather]]:
        np = _numpy()
        buckets: dict[tuple[int, int], list[Value]] = {}
        for v in nodes:
            if v is not root and v in incoming:
                buckets.setdefault((level.get(v, 0), len(incoming[v])), []).append(v)
        for (lvl, _), members in buckets.items():
            # the eager backward adds a node's contributions in rank order
            slots = [[edge_slot[r] for r in sorted(incoming[v])] for v in members]
            yield (
                lvl,
                _Gather(
                    np.array([target[v] for v in members], dtype=np.intp),
                    np.array(slots, dtype=np.intp).T.copy(),
                ),
            )

    def __repr__(self) -> str:
        return (
            f"CompiledStep(nodes={self.num_nodes}, levels={self._levels}, groups={self.num_groups}, "
            f"params={len(self.params)}, input_shapes={list(self.input_shapes)})"
        )

    # ---- running -------------------------------------------------------------------------------

    def _load(self, inputs: tuple[Any, ...]) -> None:
        np = _numpy()
        if len(inputs) != len(self.input_shapes):
            raise ValueError(
                f"the step was traced with {len(self.input_shapes)} inputs, got {len(inputs)}; "
                "the graph is fixed at trace time"
            )
        vals, at = self._vals, 0
        for i, (x, shape, size) in enumerate(zip(inputs, self.input_shapes, self._input_sizes)):
            arr = _as_array(x, f"input {i}")
            if arr.shape != shape:
                raise ValueError(
                    f"input {i} has shape {arr.shape}, but the step was traced with shape {shape}; "
                    "the graph is fixed at trace time, so compile again for another shape"
                )
            vals[at : at + size] = arr.ravel()
            at += size
        vals[at : at + self._n_p] = np.fromiter((p.data for p in self.params), np.float64, self._n_p)

    def _forward(self) -> None:
        np = _numpy()
        vals = self._vals
        take = np.take
        for _, grp in self._groups:
            if grp.forward is None:  # an ordered sum
                (idx,) = grp.args
                terms = take(vals, idx)
                if grp.signs is not None:
                    terms *= grp.signs
                vals[grp.start : grp.stop] = _ordered_sum(np, terms)
            else:
                xs = tuple(take(vals, idx) for idx in grp.args)
                grp.saved = xs
                vals[grp.start : grp.stop] = grp.forward(grp.p, *xs)

    def _backward(self) -> Floats:
        np = _numpy()
        vals, gvals, contrib = self._vals, self._gvals, self._contrib
        take = np.take
        groups = self._groups
        i = len(groups) - 1
        for lvl in range(self._levels, 0, -1):
            for gather in self._gathers.get(lvl, ()):
                gvals[gather.targets] = _ordered_sum(np, take(contrib, gather.slots), True)
            while i >= 0 and groups[i][0] == lvl:
                grp = groups[i][1]
                i -= 1
                if not any(grp.edges):
                    continue
                g = gvals[grp.start : grp.stop]
                if grp.backward is None:  # an ordered sum: each term gets sign * g
                    (lo, hi), signs = grp.edges[0], grp.signs  # type: ignore[misc]
                    block = contrib[lo:hi].reshape(grp.args[0].shape)
                    if signs is None:
                        block[...] = g
                    else:
                        np.multiply(signs, g, out=block)
                    continue
                out = vals[grp.start : grp.stop]
                for edge, dx in zip(grp.edges, grp.backward(grp.p, g, out, *grp.saved)):
                    if edge is not None:
                        contrib[edge[0] : edge[1]] = dx
        grads: Floats = np.zeros(self._n_p)
        for gather in self._param_gathers:
            grads[gather.targets] = _ordered_sum(np, take(contrib, gather.slots), True)
        if self._root_param >= 0:
            grads[self._root_param] = 1.0
        return grads

    def __call__(self, *inputs: Any) -> tuple[float, Floats]:
        """Forward and backward for these inputs and the parameters' current ``.data``:
        ``(loss, grads)``, one gradient per parameter (a new array)."""
        np = _numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):  # inf and nan are results here, as in the engine
            self._forward()
            grads = self._backward()
        return float(self._vals[self._root]), grads

    def forward(self, *inputs: Any) -> float:
        """The loss only, for these inputs and the parameters' current ``.data``."""
        np = _numpy()
        self._load(inputs)
        with np.errstate(all="ignore"):
            self._forward()
        return float(self._vals[self._root])

    def backward(self, *inputs: Any) -> float:
        """Like ``loss.backward()`` on the eager graph: add each gradient into its parameter's
        ``.grad`` (so zero them between steps, e.g. ``optimizer.zero_grad()``); returns the loss."""
        loss, grads = self(*inputs)
        for p, g in zip(self.params, grads.tolist()):
            p.grad += g
        return loss
