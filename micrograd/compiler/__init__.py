"""Compiled replay: trace a scalar loss once, then replay it as a few numpy array ops per step.

A training step builds the same graph every time; only the numbers change.
``compile`` turns it into a short program over numpy arrays, in three phases,
each a module of this package:

1. **trace** (``trace.py``): call the loss function once on Values and keep the graph;
2. **plan** (``plan.py``, a ``Plan``): read the graph (``graph.py``: left chains of
   additions such as ``sum(...)`` or a neuron's ``w . x + b`` fused into one
   ordered sum), group its nodes by topological level, op and parameters so that
   one numpy call computes a group (``group_nodes.py``), then two optional passes, the
   memory layout (``slots.py``: operands read as views) and, batched, what the
   samples share (``sharing.py``), and decide where every gradient goes
   (``routes.py``);
3. **run** (``run.py``, ``CompiledStep``): replay the plan on arrays, groups
   forward, gradients backward (``kernels.py``: ``Group``, ``Gather``); the parameters' ``.data``
   and ``.grad`` are handed on as arrays to an optimizer of the same parameters (``flat.py``),
   and held as arrays between steps, written into the Values when looked at (``held.py``).

There is no table of ops: each group runs its op's own ``Function.forward`` and
``backward`` on the arrays, the very definition the eager engine runs on floats.  The one
exception is ``array_rules.py``: ``Dot``, ``Pick`` and ``DetachedMax``, whose own rules loop over
their operands in Python, run there in whole-array numpy calls with the same numbers, and only
while their rules are the engine's own (a patched rule is replayed as patched).
No Value is made and no per-node Python runs during a step.

The results are the eager engine's, bit for bit: ``micrograd.math`` applies
the float functions (exp, log, tanh, pow, ...) element by element, sums add
their terms in the same order and gradients from several uses of a node add up
in the same order as ``backward`` adds them.  An op the plan cannot replay is a
``CompileError`` naming it: a lecture-style ``_backward`` closure, a node built
without a rule, or a user ``Function`` whose code only runs on floats (each
user op is run once on two-element arrays while compiling, to find out).

The graph is fixed when traced, as with ``torch.jit.trace``: Python control
flow that reads ``.data`` (``if x > 0``, ``max(...)`` of Values, a loop over a
data-dependent count) is replayed as it went during the trace; comparing
Values, ``float(v)`` or ``v.item()`` during the trace warns (``TracerWarning``),
as does an input's ``.data`` whose number reaches the loss as a constant.  Only the
inputs (passed at each call) and the parameters (read from their ``.data`` at
each call) change; every other leaf, e.g. a number lifted into a constant, is
frozen.  numpy is imported only when compiling.

``compile(..., batched=True)`` traces one sample's loss and replays it over a
batch of any size (``BatchedStep``): every slot of the value arrays becomes a
row with one number per sample, so each group's op runs once on 2-D arrays
(what every sample shares, e.g. an L2 term of the parameters, once, on arrays
of one column), and the step returns the mean (or the sum) of the samples' losses and
gradients, the eager engine's loop over the samples, bit for bit.

May import: ``engine``, ``_core``, ``ops``, ``math``, ``func`` and ``numpy``; never viz, exercises or nn.
``micrograd.compile`` is this package's ``compile`` (the package is ``compiler``: a function and
a package cannot share one name once the package loads on first use).

>>> from micrograd import Value
>>> w = Value(0.5)
>>> step = compile(lambda x, y: ((w * x - y) ** 2), (1.0, 2.0), params=[w])
>>> loss, grads = step(3.0, 0.0)        # (0.5 * 3 - 0)**2, and 2 * 1.5 * 3
>>> loss, grads.tolist()
(2.25, [9.0])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from .._core.bookkeeping import collector_paused
from ..engine import Value
from .errors import CompileError
from .params import HasParameters, ReplacedParameterError, RetraceWarning
from .plan import make_plan
from .run import BatchedStep, CompiledStep
from .trace import Trace, TracerWarning, trace

__all__ = [
    "BatchedStep",
    "CompileError",
    "CompiledStep",
    "FrozenParametersWarning",
    "ReplacedParameterError",
    "RetraceWarning",
    "TracerWarning",
    "compile",
]


class FrozenParametersWarning(UserWarning):
    """``compile`` was given no ``params``, but the loss reads Values made outside the traced
    function (a model's weights?): they are frozen at their traced values and get no gradients."""


def compile(  # noqa: A001 - micrograd.compile, as torch.compile
    fn: Callable[..., Value] | Callable[..., tuple[Value, Sequence[Value]]],
    example_inputs: Any,
    params: Iterable[Value] | HasParameters = (),
    batched: bool = False,
    reduction: str = "mean",
    ragged: bool | str = False,
    batch_axis: int | None = None,
) -> CompiledStep:
    """Trace ``fn`` once on ``example_inputs`` and return a step that replays it with numpy.

    ``example_inputs`` is a tuple of positional arguments (anything else is one
    argument, as in ``torch.jit.trace``), each a number, a (nested) list of numbers
    or a numpy array; ``fn`` receives it as Values of the same shape and returns
    the loss.  ``params`` are the leaf Values ``fn`` reads from outside (a model's
    weights): their ``.data`` is read at every call; any other leaf is frozen.
    Given the model itself (``params=model``), every call checks that
    ``model.parameters()`` are still the Values traced: one replaced by a new
    Value is a ``ReplacedParameterError`` (a list cannot tell; ``params.py``).

    ``step(*inputs)`` returns ``(loss, grads)``, a float and a numpy array of one
    gradient per parameter; ``step.backward(*inputs)`` adds them into each
    ``.grad`` instead, as ``loss.backward()`` does; ``step.forward(*inputs)``
    gives the loss only.  Inputs must have the traced shapes.

    With ``batched=True``, ``example_inputs`` is ONE sample and ``fn`` its loss; the
    step (a ``BatchedStep``) takes a batch of any size, each input of shape
    ``(batch, *traced shape)`` (``batch_axis=-1``: the batch axis last; a batch that
    reads both ways, 3 samples of 3 numbers, needs ``batch_axis`` said), and
    returns the mean over the samples of the loss and of each gradient
    (``reduction="mean"``) or their sum (``"sum"``), as the eager loop adds them.

    >>> w = Value(0.5)
    >>> step = compile(lambda x, y: (w * x - y) ** 2, (1.0, 2.0), params=[w], batched=True)
    >>> loss, grads = step([3.0, 1.0], [0.0, 0.0])     # mean of 1.5**2 and 0.5**2; of 9 and 1
    >>> loss, grads.tolist()
    (1.25, [5.0])

    With ``ragged=True`` as well, the samples may be of different sizes, as documents
    of different lengths are: ``fn`` returns ``(loss, parts)``, the loss and the Values
    it adds up, traced at the largest size, and each call takes ``sizes=``, the parts
    each sample keeps; its numbers are those of its smaller graph, bit for bit
    (``micrograd.compiler.ragged``).  With ``ragged="mean"`` (or ``"sum"``) ``fn``
    returns the parts only, and each sample's loss is the mean (sum) of its own
    parts, ``micrograd.sum(parts) * (1 / size)``: no size is baked in.
    """
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    check_options(fn, args, batched, reduction, ragged, batch_axis)
    step = traced_step(fn, args, params, batched, reduction, ragged)
    if isinstance(step, BatchedStep):
        step.batch_axis = batch_axis
    return step


def traced_step(
    fn: Callable[..., Any], args: tuple[Any, ...], params: Any, batched: bool, reduction: str, ragged: Any
) -> CompiledStep:
    """``compile``'s step, its options checked: traced, planned, bound (watching the model, if given)."""
    model = params if is_model(params) else None
    parts: list[Any] = []
    found = params if model is None else model.parameters()
    if ragged in ("mean", "sum"):  # the loss made here, its 1 / size an input of its own
        fn, args = partial(reduce_parts, fn, ragged), (*args, 1.0)
    # Python's collector paused while the graph is made, as while it is planned (plan_and_bind):
    # tracing a 13-token GPT makes 14,000 nodes, and a collection then walks every object the
    # program keeps (a training run's earlier traces too): a trace took 67 ms on average with it,
    # 36 without (12 traces, 4 kept before)
    with collector_paused():
        traced = trace(partial(loss_and_parts, fn, parts) if ragged else fn, args, found)
        step = plan_and_bind(traced, batched, reduction, parts if ragged else None)
    if isinstance(step, BatchedStep) and ragged in ("mean", "sum"):
        step.part_reduction = ragged
    if model is not None:
        step.watch(model)
    if not traced.params and step.frozen_values:
        warn_frozen(step.frozen_values)
    return step


def is_model(params: object) -> bool:
    """Whether ``params`` is a model (it has a ``parameters()`` method), not the parameters."""
    return not isinstance(params, Value) and callable(getattr(params, "parameters", None))


def warn_frozen(count: int) -> None:
    """``FrozenParametersWarning``, at the line that called ``compile``."""
    warnings.warn(
        f"compile() got no params, but the loss reads {count} Value(s) made outside the "
        "traced function (a model's weights?): they are frozen at their traced values and get no "
        "gradients, so training would not move them. Pass params=model.parameters()",
        FrozenParametersWarning,
        stacklevel=4,
    )


def reduce_parts(fn: Callable[..., Any], how: str, *args: Any) -> tuple[Value, Any]:
    """(``ragged="mean"`` or ``"sum"``) ``fn``'s parts and their sum, times the last argument, the
    sample's ``1 / size`` (``"sum"``: 1.0): the eager ``micrograd.sum(parts) * (1.0 / len(parts))``."""
    from ..ops.basic import sum as sum_node

    *inputs, scale = args
    parts = fn(*inputs)
    if not isinstance(parts, (list, tuple)) or not parts or not all(isinstance(p, Value) for p in parts):
        raise TypeError(
            f'compile(..., ragged="{how}") needs fn to return its parts, a non-empty list of Values '
            f"(the loss is their {how}, made by compile); got {type(parts).__name__}"
        )
    total = sum_node(parts)
    return (total * scale if how == "mean" else total), list(parts)


def loss_and_parts(fn: Callable[..., Any], parts: list[Any], *args: Any) -> Value:
    """A ragged loss function's loss; its parts go into ``parts`` (checked: a list of Values)."""
    out = fn(*args)
    if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], (list, tuple))):
        raise TypeError(
            "compile(..., ragged=True) needs fn to return (loss, parts): the loss and the list of Values "
            f"it adds up; got {type(out).__name__}"
        )
    loss, got = out
    if not got or not all(isinstance(p, Value) for p in got):
        raise TypeError("compile(..., ragged=True): the parts fn returns must be a non-empty list of Values")
    parts.extend(got)
    return loss  # type: ignore[no-any-return]


def plan_and_bind(
    traced: Trace, batched: bool, reduction: str, parts: list[Value] | None = None
) -> CompiledStep:
    """The step of ``traced``: its plan, bound to its arrays (``traced_step`` runs it with Python's
    collector paused).

    The plan and the step's arrays make no reference cycles, only many small dicts, lists and
    tuples (a GPT step's graph: 84,000 edges), over which the collector would re-walk the traced
    graph again and again: paused, as ``backward()`` pauses it (measured on a 9-token GPT
    document: 214-260 ms against 277-305 ms)."""
    plan = make_plan(traced, batched=batched)
    return BatchedStep(plan, reduction, parts) if batched else CompiledStep(plan)


def check_options(
    fn: object,
    args: tuple[Any, ...],
    batched: object,
    reduction: object,
    ragged: object = False,
    batch_axis: object = None,
) -> None:
    """A TypeError or ValueError that says what to pass, for options ``compile`` cannot take."""
    if not callable(fn):
        raise TypeError(f"compile() needs a function to trace, got {type(fn).__name__}")
    if not isinstance(batched, bool):
        raise TypeError(f"compile(batched=...) must be True or False, got {type(batched).__name__}")
    if reduction not in ("mean", "sum"):
        raise ValueError(f"compile(reduction=...) must be 'mean' or 'sum', got {reduction!r}")
    if reduction != "mean" and not batched:
        raise ValueError(
            "compile(reduction=...) reduces over a batch: it needs batched=True "
            "(an unbatched step returns the traced loss as it is)"
        )
    if batched and not args:
        raise ValueError("compile(batched=True) needs at least one input to carry the batch axis")
    if not isinstance(ragged, bool) and ragged not in ("mean", "sum"):
        raise TypeError(f"compile(ragged=...) must be True, False, 'mean' or 'sum', got {ragged!r}")
    if ragged and not batched:
        raise ValueError("compile(ragged=True) cuts a batch's samples to their sizes: it needs batched=True")
    if batch_axis not in (None, 0, -1) or (batch_axis is not None and not batched):
        raise ValueError(
            "compile(batch_axis=...) says where a batch's samples are: 0 (samples first, "
            f"(batch, *shape)) or -1 (features first, (*shape, batch)), with batched=True; got {batch_axis!r}"
        )
