"""Function transforms, as ``torch.func`` and JAX: ``grad(f)`` is a function.

``grad``, ``value_and_grad``, ``vjp``, ``jacrev`` and ``hessian`` use reverse
mode (``micrograd.grad``); ``jvp``, ``jacfwd`` and ``hvp`` use forward mode:
tangents flow alongside the values, from the inputs to the outputs, in one walk
over the graph in topological order.  Forward mode has no rules of its own: a
node's tangent is the sum over its operands of the op's local partial
derivative times the operand's tangent, and the local partials come from the
op's one ``backward`` (the chain rule is linear in the gradient flowing in, so
``backward(ctx, 1.0)`` gives d(node)/d(operand) for every operand).  So forward
mode works for the engine's ops, user ``Function``s and the lecture's closures.

Functions take and return numbers, Values, or (nested) lists and tuples of
them.  ``argnums`` (an int or a tuple of ints) picks the arguments to
differentiate; ``has_aux=True`` means ``f`` returns ``(output, aux)`` and
``aux`` is passed through.  Called with numbers the transforms return floats;
called with Values (or inside another transform) they return Values that can
be differentiated again, so transforms compose: ``grad(grad(f))``,
``jacfwd(jacrev(f))``.

>>> from micrograd import func
>>> f = lambda x, y: x * x * y
>>> func.grad(f, argnums=(0, 1))(3.0, 2.0)
(12.0, 9.0)
>>> func.jvp(f, (3.0, 2.0), (1.0, 0.0))
(18.0, 12.0)
>>> func.grad(func.grad(lambda x: x**3))(2.0)
12.0
>>> func.hessian(f, argnums=(0, 1))(3.0, 2.0)
((4.0, 6.0), (6.0, 0.0))
"""

from __future__ import annotations

import inspect
import numbers
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from .. import engine
from .._core import nodes
from .._core.context import Context
from .._core.grad_mode import enable_grad, hear_data_reads
from .._core.nodes import no_rule_error
from ..engine import Function, Value, topological_order
from .reads import ReadLog, constants_read, watch_reads
from .reverse import grad as _reverse

__all__ = [
    "ForwardStep",
    "TracedValueReadWarning",
    "forward_steps",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "value_and_grad",
    "vjp",
]

Argnums = int | tuple[int, ...]

# ---- (nested) lists and tuples of numbers and Values -----------------------------------------

# A structure's shape: None for a leaf (a number or a Value), else (list or tuple, the items' shapes).
Shape = tuple[type, tuple[Any, ...]] | None


class ndarray:  # noqa: N801 - named for what it marks, as numpy's class
    """A numpy array in a shape: f gets it as nested lists; results shaped like it come back as an array
    (nested lists where they hold Values, inside another transform)."""

    def __new__(cls, items: Iterable[Any]) -> Any:
        rows = list(items)
        if all(isinstance(r, float) or type(r).__module__ == "numpy" for r in rows):
            import numpy

            return numpy.asarray(rows, dtype=numpy.float64)
        return rows


def _flatten(tree: Any, what: str) -> tuple[list[Any], Shape]:
    """The leaves of ``tree`` in order, and its shape; a clear TypeError for anything else."""
    leaves: list[Any] = []

    def walk(t: Any, path: str) -> Shape:
        if isinstance(t, Value):
            leaves.append(t)
            return None
        if isinstance(t, numbers.Real) and not isinstance(t, bool):
            leaves.append(float(t))
            return None
        if type(t) in (list, tuple):
            return (type(t), tuple(walk(item, f"{path}[{i}]") for i, item in enumerate(t)))
        if type(t).__module__ == "numpy" and getattr(t, "ndim", 0) > 0 and t.dtype.kind in "biuf":
            return (ndarray, tuple(walk(item, f"{path}[{i}]") for i, item in enumerate(t.tolist())))
        raise TypeError(
            f"micrograd.func: {what}{path} must be a number, a Value, a numpy array of numbers, or a "
            f"(nested) list or tuple of them, got {type(t).__name__}: {t!r}"
        )

    return leaves, walk(tree, "")


def _unflatten(shape: Shape, leaves: Iterator[Any]) -> Any:
    if shape is None:
        return next(leaves)
    kind, items = shape
    return kind(_unflatten(s, leaves) for s in items)


# ---- when results are Values ------------------------------------------------------------------

_nesting = threading.local()  # how many transforms are running f on this thread


def _depth() -> int:
    return getattr(_nesting, "depth", 0)


def _values_mode(*leaf_lists: Sequence[Any]) -> bool:
    """Results must stay differentiable (Values, graphs recorded) when any input is a Value or
    when an outer transform is running: it differentiates what this one returns."""
    return _depth() > 0 or any(isinstance(x, Value) for leaves in leaf_lists for x in leaves)


def _plain(x: Any, values: bool) -> Any:
    """A result as the caller gets it: floats when called with numbers, else as computed."""
    if values:
        return x
    return x.data if isinstance(x, Value) else x


def _plain_tree(tree: Any, values: bool) -> Any:
    if values:
        return tree
    if isinstance(tree, Value):
        return tree.data
    if type(tree) in (list, tuple):
        return type(tree)(_plain_tree(t, values) for t in tree)
    return tree


class _Input(Function):
    """A differentiated input inside a transform: the identity.  Given a Value of an outer
    computation, the transform differentiates with respect to this fresh node and not the
    outer Value, so that an inner ``grad`` does not mix up its variable with the outer one."""

    name = "input"

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return x

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return g


def _fresh(x: Any) -> Value:
    return watch_reads(_Input.apply(x) if isinstance(x, Value) else Value(x))  # (.data reads noted)


# ---- running f on fresh inputs ----------------------------------------------------------------


def _argnums(argnums: Any, n_args: int) -> tuple[int, ...]:
    many = isinstance(argnums, tuple)
    picks = argnums if many else (argnums,)
    if not picks or any(type(a) is not int for a in picks):
        raise TypeError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    result = []
    for a in picks:
        if not -n_args <= a < n_args:
            raise ValueError(
                f"argnums {argnums!r} is out of range for a function called with {n_args} arguments"
            )
        result.append(a % n_args)
    if len(set(result)) != len(result):
        raise ValueError(f"argnums {argnums!r} names an argument twice")
    return tuple(result)


class _Trace:
    """``f`` run once on fresh Values for the differentiated arguments: the graph that the
    transforms walk backwards (reverse mode) or forwards (forward mode)."""

    def __init__(self, name: str, f: Callable[..., Any], args: tuple[Any, ...], argnums: Any, has_aux: bool):
        if not callable(f):
            raise TypeError(f"micrograd.func.{name} needs a function, got {type(f).__name__}: {f!r}")
        if not args:
            raise TypeError(f"micrograd.func.{name}: the function was called without arguments")
        self.picks = _argnums(argnums, len(args))
        self.many = isinstance(argnums, tuple)
        self.arg_shapes: list[Shape] = []
        self.inputs: list[Value] = []  # the differentiated leaves, in order
        self.counts: list[int] = []  # how many of them each picked argument has
        call_args = list(args)
        flat = [_flatten(arg, f"argument {i}") for i, arg in enumerate(args)]
        self.values = _values_mode(*[leaves for leaves, _ in flat])
        for i in self.picks:  # in argnums' order, which the results follow
            leaves, shape = flat[i]
            self.arg_shapes.append(shape)
            fresh = [_fresh(x) for x in leaves]
            self.inputs += fresh
            self.counts.append(len(fresh))
            call_args[i] = _unflatten(shape, iter(fresh))
        for i, arg in enumerate(args):
            if i not in self.picks:
                call_args[i] = _constants(arg)
        with ReadLog() as log:
            self.out, aux = _call(name, f, call_args, has_aux)
        self.aux = _plain_tree(aux, self.values)
        self.out_leaves, self.out_shape = _flatten(self.out, "the function's output")
        _warn_of_constants(name, log, [v for v in self.out_leaves if isinstance(v, Value)], self.inputs)

    def per_input(self, derivatives: Sequence[Any]) -> Any:
        """One derivative per differentiated leaf, arranged as the arguments (a tuple of them
        when argnums is a tuple)."""
        it = iter(derivatives)
        parts = []
        for shape, count in zip(self.arg_shapes, self.counts):
            parts.append(_unflatten(shape, iter([next(it) for _ in range(count)])))
        return tuple(parts) if self.many else parts[0]

    def jacobian(self, rows: Sequence[Sequence[Any]]) -> Any:
        """``rows[o][i]`` = d(output leaf o)/d(input leaf i), arranged as the output with each leaf
        replaced by its derivatives arranged as the inputs (``torch.func.jacrev``'s layout)."""
        return _unflatten(self.out_shape, iter([self.per_input(row) for row in rows]))


def _constants(tree: Any) -> Any:
    """An argument that is not differentiated, as ``f`` gets it: its floats (and numpy arrays of
    them) as Values, constants of the graph, so that ``f`` can call Value methods on every
    argument; Values stay as they are, ints (counts, indices) stay ints."""
    if isinstance(tree, float) or (type(tree).__module__ == "numpy" and getattr(tree, "ndim", 1) == 0):
        return Value(float(tree))
    if type(tree) in (list, tuple):
        return type(tree)(_constants(t) for t in tree)
    if type(tree).__module__ == "numpy" and getattr(tree, "ndim", 0) > 0 and tree.dtype.kind == "f":
        return _constants(tree.tolist())
    return tree


def _warn_of_reads(name: str) -> Callable[[str, str], None]:
    """What a transform does when ``f`` reads a traced Value as a number (``float(v)``,
    ``v.item()``, ``v.data``, ``math.exp(v)``): the number is a constant to the transform, so no gradient
    flows through it; say so, at the line of ``f`` that did it, as PyTorch warns of ``float()``
    on a tensor that requires grad.  Comparisons and ``if`` on data are fine: not reported."""

    def warn(what: str, kind: str) -> None:
        if kind != "convert":
            return
        frame = sys._getframe(1)
        while frame.f_back is not None and frame.f_code.co_filename.startswith(nodes.ENGINE_DIRS):
            frame = frame.f_back
        warnings.warn_explicit(
            f"micrograd.func.{name}: {what} reads a Value the transform traces as a plain number, which "
            "the transform then treats as a constant: no gradient flows through it. Compute with the "
            "Value itself (micrograd.math.exp(x), not math.exp(x); x, not x.data, float(x) or x.item())",
            TracedValueReadWarning,
            frame.f_code.co_filename,
            frame.f_lineno,
            module=frame.f_globals.get("__name__"),
        )

    return warn


def _warn_of_constants(name: str, log: ReadLog, outputs: list[Value], inputs: list[Value]) -> None:
    """A warning at each line whose ``x.data`` read reached the output as a constant (``x.data * x``);
    a read that only picks a branch (``if x.data > 0``), or feeds a lecture-style op, is fine."""
    for (file, line), _ in constants_read(outputs, log, inputs):
        warnings.warn_explicit(
            f"micrograd.func.{name}: x.data reads a Value the transform traces as a plain number, and that "
            "number reached the result as a constant: no gradient flows through it. Compute with the "
            "Value itself (x, not x.data)",
            TracedValueReadWarning,
            file,
            line,
        )


class TracedValueReadWarning(UserWarning):
    """A function under a ``micrograd.func`` transform read a traced Value as a number."""


def _call(name: str, f: Callable[..., Any], args: Sequence[Any], has_aux: bool) -> tuple[Any, Any]:
    _nesting.depth = _depth() + 1
    try:
        # as torch.func: an outer no_grad does not stop the transform
        with enable_grad(), hear_data_reads(_warn_of_reads(name)):
            result = f(*args)
    finally:
        _nesting.depth -= 1
    if not has_aux:
        return result, None
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(
            f"micrograd.func.{name}(..., has_aux=True) needs the function to return a pair (output, aux), "
            f"got {type(result).__name__}: {result!r}"
        )
    return result[0], result[1]


def _scalar_output(name: str, trace: _Trace) -> Any:
    if trace.out_shape is not None:
        raise TypeError(
            f"micrograd.func.{name} needs the function to return one number or Value (a scalar), "
            f"got a {type(trace.out).__name__} of {len(trace.out_leaves)}: "
            "use jacrev or jacobian for several outputs"
        )
    return trace.out_leaves[0]


# ---- reverse mode ---------------------------------------------------------------------------


def _pull(outputs: Sequence[Any], weights: Sequence[Any], inputs: Sequence[Value], values: bool) -> list[Any]:
    """sum_o weights[o] * d(outputs[o])/d(each input), by ``micrograd.grad`` (zeros where unused)."""
    roots = [(o, w) for o, w in zip(outputs, weights) if isinstance(o, Value)]
    if not roots:
        return [0.0] * len(inputs)
    create_graph = values or any(isinstance(w, Value) for _, w in roots)
    found = _reverse(
        [o for o, _ in roots],
        inputs,
        grad_outputs=[w for _, w in roots],
        create_graph=create_graph,
        allow_unused=True,
    )
    return [0.0 if g is None else _plain(g, values) for g in found]


def _rows_reverse(trace: _Trace) -> list[list[Any]]:
    """The Jacobian row by row: one backward pass per output."""
    return [_pull([o], [1.0], trace.inputs, trace.values) for o in trace.out_leaves]


def value_and_grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``f`` and its gradient, in one call: ``(value, grad)``, or ``((value, aux), grad)`` with ``has_aux``.

    >>> value_and_grad(lambda x: x * x)(3.0)
    (9.0, 6.0)
    """

    def value_and_grad_f(*args: Any) -> Any:
        trace = _Trace("value_and_grad", f, args, argnums, has_aux)
        out = _scalar_output("value_and_grad", trace)
        g = trace.per_input(_pull([out], [1.0], trace.inputs, trace.values))
        value = _plain(out, trace.values)
        return ((value, trace.aux) if has_aux else value), g

    return value_and_grad_f


def grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of scalar-valued ``f`` with respect to argument ``argnums``, as a function:
    arranged as that argument (a tuple of them for a tuple of argnums); ``(grad, aux)`` with
    ``has_aux``.  Reverse mode: one backward pass.

    >>> grad(lambda x, y: x * y, argnums=(0, 1))(3.0, 4.0)
    (4.0, 3.0)
    >>> grad(lambda xs: xs[0] * xs[1])([3.0, 4.0])
    [4.0, 3.0]
    """
    inner = value_and_grad(f, argnums, has_aux)

    def grad_f(*args: Any) -> Any:
        value, g = inner(*args)
        return (g, value[1]) if has_aux else g

    return grad_f


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(f(*primals), pullback)`` (and ``aux`` with ``has_aux``): ``pullback(cotangents)``, the
    cotangents arranged as f's output, returns the vector-Jacobian product, a tuple with one entry
    per primal.  The pullback may be called many times.

    >>> out, pullback = vjp(lambda x, y: [x * y, x + y], 2.0, 3.0)
    >>> out, pullback([1.0, 0.0]), pullback([0.0, 1.0])
    ([6.0, 5.0], (3.0, 2.0), (1.0, 1.0))
    """
    trace = _Trace("vjp", f, primals, tuple(range(len(primals))), has_aux)

    def pullback(cotangents: Any) -> tuple[Any, ...]:
        weights, shape = _flatten(cotangents, "the cotangents")
        if shape != trace.out_shape:
            raise ValueError(
                f"micrograd.func.vjp: the cotangents must be arranged as the function's output "
                f"({_describe(trace.out_shape)}), got {_describe(shape)}"
            )
        values = trace.values or any(isinstance(w, Value) for w in weights)
        found = _pull(trace.out_leaves, weights, trace.inputs, values)
        return trace.per_input(found)  # type: ignore[no-any-return]

    out = _plain_tree(trace.out, trace.values)
    return (out, pullback, trace.aux) if has_aux else (out, pullback)


def jacrev(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``f`` by reverse mode: one backward pass per output (cheap when outputs are
    few).  Arranged as ``torch.func.jacrev``: f's output with each entry replaced by its
    derivatives, arranged as the differentiated arguments; ``(jacobian, aux)`` with ``has_aux``.

    >>> jacrev(lambda x, y: [x * y, x + y], argnums=(0, 1))(2.0, 3.0)
    [(3.0, 2.0), (1.0, 1.0)]
    """
    return _jacobian_transform("jacrev", f, argnums, has_aux, lambda trace: _rows_reverse(trace))


def _jacobian_transform(
    name: str,
    f: Callable[..., Any],
    argnums: Argnums,
    has_aux: bool,
    rows: Callable[[_Trace], list[list[Any]]],
) -> Callable[..., Any]:
    def jacobian_f(*args: Any) -> Any:
        trace = _Trace(name, f, args, argnums, has_aux)
        jac = trace.jacobian(rows(trace))
        if not trace.values and any(type(a).__module__ == "numpy" and getattr(a, "ndim", 0) for a in args):
            import numpy  # given arrays, the Jacobian is one array (outputs first, then the inputs' axes)

            jac = numpy.asarray(jac, dtype=numpy.float64)
        return (jac, trace.aux) if has_aux else jac

    jacobian_f.__name__ = f"{name}_f"
    return jacobian_f


# ---- forward mode -----------------------------------------------------------------------------


def _local_partials(node: Value, values: bool) -> Sequence[Any]:
    """d(node)/d(operand) for each of node's operands, from the op's own backward: its chain rule
    is linear in the gradient flowing in, so ``backward`` given 1 returns the local partials.
    As Values (differentiable, for nesting) when ``values``."""
    if node._fn is None:
        raise no_rule_error(node)
    if not values:
        return engine.vjp(node, 1.0)
    try:
        return engine.vjp(node, Value(1.0), create_graph=True)
    except RuntimeError as exc:
        raise RuntimeError(
            f"micrograd.func: forward mode inside another transform needs the local derivatives of op "
            f"{node._op or '?'!r} as Values, and {exc}"
        ) from exc


Record = Callable[[Value, list[tuple[Value, Any, list[Any]]], list[Any]], None]


def _push(
    outputs: Sequence[Any], seeds: dict[Value, list[Any]], n: int, values: bool, record: Record | None = None
) -> list[list[Any]]:
    """Forward mode: ``n`` tangents per node, pushed from the seeded inputs to ``outputs`` in
    one walk in topological order.  A node's tangents are sum_k d(node)/d(operand k) *
    tangents(operand k); nodes that no seed reaches have none (zero) and cost nothing.
    Returns the n tangents of each output (zeros for numbers and unreached outputs).  ``record``
    hears each node that gets tangents: its (operand, local partial, operand's tangents) and its own."""
    roots = [o for o in outputs if isinstance(o, Value)]
    tangents: dict[Value, list[Any]] = {}
    for node in topological_order(roots):
        seed = seeds.get(node)
        if seed is not None:
            tangents[node] = seed
            if record is not None:
                record(node, [], seed)
            continue
        carried = [(k, tangents[c]) for k, c in enumerate(node._prev) if c in tangents]
        if not carried:
            continue  # a constant with respect to the inputs
        local = _local_partials(node, values)
        total: list[Any] | None = None
        for k, t in carried:
            d = local[k]
            if d is None:
                continue
            part = [d * ti for ti in t]
            total = part if total is None else [a + b for a, b in zip(total, part)]
        if total is not None:
            tangents[node] = total
            if record is not None:
                record(node, [(node._prev[k], local[k], t) for k, t in carried], total)
    zeros = [0.0] * n
    return [tangents.get(o, zeros) if isinstance(o, Value) else zeros for o in outputs]


def jvp(
    f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...], has_aux: bool = False
) -> tuple[Any, ...]:
    """Forward mode: ``(f(*primals), directional derivative along tangents)`` (and ``aux`` with
    ``has_aux``), the tangents flowing forward beside the values in one walk over the graph.
    ``primals`` and ``tangents`` are tuples with one entry per argument, each tangent arranged
    as its primal; the result's tangent is arranged as f's output.

    >>> jvp(lambda x, y: [x * y, x + y], (2.0, 3.0), (1.0, 0.0))
    ([6.0, 5.0], [3.0, 1.0])
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise TypeError(
            "micrograd.func.jvp(f, primals, tangents): primals and tangents must be tuples with one "
            f"entry per argument, got {type(primals).__name__} and {type(tangents).__name__}"
        )
    if len(primals) != len(tangents):
        raise ValueError(f"micrograd.func.jvp: {len(primals)} primals but {len(tangents)} tangents")
    trace = _Trace("jvp", f, primals, tuple(range(len(primals))), has_aux)
    seed_leaves: list[Any] = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        leaves, shape = _flatten(t, f"tangents[{i}]")
        if shape != _flatten(p, f"primals[{i}]")[1]:
            raise ValueError(f"micrograd.func.jvp: tangents[{i}] must be arranged as primals[{i}]")
        seed_leaves += leaves
    values = trace.values or any(isinstance(t, Value) for t in seed_leaves)
    seeds = {x: [t] for x, t in zip(trace.inputs, seed_leaves)}
    pushed = _push(trace.out_leaves, seeds, 1, values)
    out = _plain_tree(trace.out, values)
    tangent_out = _unflatten(trace.out_shape, iter([_plain(t[0], values) for t in pushed]))
    return (out, tangent_out, trace.aux) if has_aux else (out, tangent_out)


def _rows_forward(trace: _Trace) -> list[list[Any]]:
    """The Jacobian column by column, all columns in one forward walk: input leaf i is seeded
    with the i-th unit vector, so each node carries one tangent per input."""
    n = len(trace.inputs)
    seeds = {x: [1.0 if j == i else 0.0 for j in range(n)] for i, x in enumerate(trace.inputs)}
    pushed = _push(trace.out_leaves, seeds, n, trace.values)
    return [[_plain(t, trace.values) for t in row] for row in pushed]


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``f`` by forward mode: one forward walk carrying one tangent per input
    (cheap when inputs are few).  Arranged as ``jacrev``.

    >>> jacfwd(lambda x: [x * x, 3 * x])(2.0)
    [4.0, 3.0]
    """
    return _jacobian_transform("jacfwd", f, argnums, has_aux, _rows_forward)


def jacobian(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``f``, by forward mode when f has more outputs than inputs and by reverse
    mode otherwise (f runs once either way).  Arranged as ``jacrev``.

    >>> jacobian(lambda xs: [xs[0] * xs[1], xs[0] + xs[1]])([2.0, 3.0])
    [[3.0, 2.0], [1.0, 1.0]]
    """

    def rows(trace: _Trace) -> list[list[Any]]:
        if len(trace.out_leaves) > len(trace.inputs):
            return _rows_forward(trace)
        return _rows_reverse(trace)

    return _jacobian_transform("jacobian", f, argnums, has_aux, rows)


def hessian(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The Hessian of scalar-valued ``f``: ``jacfwd(jacrev(f))``, forward over reverse.

    >>> hessian(lambda xs: xs[0] ** 2 * xs[1])([1.0, 2.0])
    [[4.0, 2.0], [2.0, 0.0]]
    """
    gradient = grad(f, argnums)
    inner = jacfwd(gradient, argnums)

    def hessian_f(*args: Any) -> Any:
        return inner(*args)

    return hessian_f


def hvp(f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """``(f(*primals), H @ tangents)``: the Hessian of scalar-valued ``f`` times a vector without
    forming the Hessian, forward over reverse (``jvp`` of ``grad``).  The product is a tuple
    with one entry per primal, arranged as it.

    >>> hvp(lambda x, y: x * x * y, (3.0, 2.0), (1.0, 0.0))
    (18.0, (4.0, 6.0))
    """
    if not isinstance(primals, tuple) or not primals:
        raise TypeError("micrograd.func.hvp(f, primals, tangents): primals must be a non-empty tuple")
    inner = value_and_grad(f, argnums=tuple(range(len(primals))))

    def gradient_and_value(*args: Any) -> tuple[Any, Any]:
        value, g = inner(*args)
        return g, value

    _, product, value = jvp(gradient_and_value, primals, tangents, has_aux=True)
    return _plain(value, _values_mode(*[_flatten(p, "primals")[0] for p in primals])), product


def _describe(shape: Shape) -> str:
    if shape is None:
        return "one number"
    kind, items = shape
    return f"a {kind.__name__} of {len(items)}"


class ForwardStep(NamedTuple):
    """One node of forward mode (``forward_steps``): its tangent, the sum over the operands that
    carry one of local derivative (None: the op has no derivative there) * the operand's tangent."""

    node: Value
    parts: list[tuple[Value, Any, Any]]  # (operand, local derivative, the operand's tangent); [] for an input
    tangent: Any


def forward_steps(
    f: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    *,
    caller: str = "forward_steps",
) -> tuple[list[ForwardStep], list[Value]]:
    """Forward mode on numbers, node by node: ``f`` traced once on Values named after its
    parameters (``x``, ``xs[0]``), and the tangents pushed from the inputs (seeded with
    ``tangents``) to the outputs in topological order.  Returns the steps, inputs first, and
    ``f``'s output Values.  ``caller`` is the name its errors give.  (``micrograd.viz.explain_jvp``
    prints them.)

    >>> steps, outputs = forward_steps(lambda x, y: x * y, (2.0, 3.0), (1.0, 0.0))
    >>> [(s.node.label or s.node.op, s.tangent) for s in steps]
    [('x', 1.0), ('y', 0.0), ('*', 3.0)]
    >>> outputs == [steps[-1].node]
    True
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple) or len(primals) != len(tangents):
        raise TypeError(f"micrograd: {caller}(f, primals, tangents): two tuples of the same length")
    seed_leaves: list[Any] = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        leaves, shape = _flatten(t, f"tangents[{i}]")
        primal_leaves, primal_shape = _flatten(p, f"primals[{i}]")
        if shape != primal_shape:
            raise ValueError(f"micrograd: {caller}: tangents[{i}] must be arranged as primals[{i}]")
        if any(isinstance(x, Value) for x in leaves + primal_leaves):
            raise TypeError(f"micrograd: {caller} works on numbers: pass numbers, not Values")
        seed_leaves += leaves
    trace = _Trace(caller, f, primals, tuple(range(len(primals))), False)
    for x, name in zip(trace.inputs, _input_names(f, primals)):
        x.label = name
    steps: list[ForwardStep] = []
    _push(
        trace.out_leaves,
        {x: [t] for x, t in zip(trace.inputs, seed_leaves)},
        1,
        False,
        lambda node, parts, total: steps.append(
            ForwardStep(node, [(c, local, tc[0]) for c, local, tc in parts], total[0])
        ),
    )
    return steps, [o for o in trace.out_leaves if isinstance(o, Value)]


def _input_names(f: Callable[..., Any], primals: tuple[Any, ...]) -> list[str]:
    """``x``, ``y``, ``xs[0]``: f's parameter names (``arg0``, ... when it has none to read)."""
    try:
        params = [
            p.name
            for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    names: list[str] = []

    def walk(t: Any, path: str) -> None:
        if type(t) in (list, tuple):
            for i, item in enumerate(t):
                walk(item, f"{path}[{i}]")
        else:
            names.append(path)

    for i, p in enumerate(primals):
        walk(p, params[i] if i < len(params) else f"arg{i}")
    return names
