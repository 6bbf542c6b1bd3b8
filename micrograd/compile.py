"""Compiled replay: trace a scalar loss once, then replay it as a few numpy array ops per step.

A training step builds the same graph every time; only the numbers change.
``compile`` calls the loss function once on Values (the trace, here), records
the graph, and turns it into a short program over numpy arrays, in named phases:
the trace; the plan (``replay.CompiledStep.__init__``: nodes grouped by
topological level, op and parameters, so that one call computes every node of a
group, ``groups._Group``, operands gathered with index arrays, and left chains
of additions such as ``sum(...)`` or a neuron's ``w . x + b`` fused into one
ordered sum); and the replay (``_forward``, ``_backward``).  There is no table of ops: each
group runs its op's own ``Function.forward`` and ``backward`` on the arrays,
the very definition the eager engine runs on floats.  No Value is made and no
per-node Python runs during a step.

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
a direct read of ``.data`` cannot be seen.  Only the
inputs (passed at each call) and the parameters (read from their ``.data`` at
each call) change; every other leaf, e.g. a number lifted into a constant, is
frozen.  numpy is imported only when compiling.

``compile(..., batched=True)`` traces one sample's loss and replays it over a
batch of any size (``BatchedStep``): every slot of the value arrays becomes a
row with one number per sample, so each group's op runs once on 2-D arrays
(what every sample shares, e.g. an L2 term of the parameters, once, on arrays
of one column), and the step returns the mean (or the sum) of the samples' losses and
gradients, the eager engine's loop over the samples, bit for bit.

>>> from micrograd import Value
>>> w = Value(0.5)
>>> step = compile(lambda x, y: ((w * x - y) ** 2), (1.0, 2.0), params=[w])
>>> loss, grads = step(3.0, 0.0)        # (0.5 * 3 - 0)**2, and 2 * 1.5 * 3
>>> loss, grads.tolist()
(2.25, [9.0])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .engine import Value
from .grad_mode import enable_grad, hear_data_reads, is_anomaly_enabled
from .groups import CompileError
from .nodes import NO_GRAD
from .replay import BatchedStep, CompiledStep, as_array

__all__ = [
    "BatchedStep",
    "CompileError",
    "CompiledStep",
    "FrozenParametersWarning",
    "TracerWarning",
    "compile",
]


class TracerWarning(UserWarning):
    """The traced function turned a Value into a Python bool or float: whatever it
    decided with it is fixed in the compiled step (``torch.jit.TracerWarning``'s role)."""


def _nest(values: list[Value], shape: tuple[int, ...]) -> Any:
    """Values in nested lists of ``shape``, as ``ndarray.tolist()`` would nest numbers."""
    if not shape:
        return values[0]
    if len(shape) == 1:
        return values
    step = len(values) // shape[0] if shape[0] else 0
    return [_nest(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _param_list(params: Any) -> list[Value]:
    """``params`` as a list, or a TypeError that says what to pass."""
    if isinstance(params, Value):
        return [params]
    if callable(getattr(params, "parameters", None)):
        raise TypeError(
            f"compile(params=...) takes the parameters, not the model: pass params=model.parameters() "
            f"(got a {type(params).__name__})"
        )
    if callable(params):
        raise TypeError(
            f"compile(params=...) got a function or method ({getattr(params, '__qualname__', params)!r}); "
            "call it: params=model.parameters()"
        )
    try:
        return list(params)
    except TypeError:
        raise TypeError(
            "compile(params=...) takes a list of Values (e.g. model.parameters()), "
            f"got {type(params).__name__}"
        ) from None


class FrozenParametersWarning(UserWarning):
    """``compile`` was given no ``params``, but the loss reads Values made outside the traced
    function (a model's weights?): they are frozen at their traced values and get no gradients."""


def compile(  # noqa: A001 - micrograd.compile, as torch.compile
    fn: Callable[..., Value],
    example_inputs: Any,
    params: Iterable[Value] = (),
    batched: bool = False,
    reduction: str = "mean",
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

    With ``batched=True``, ``example_inputs`` is ONE sample and ``fn`` that
    sample's loss; the step (a ``BatchedStep``) takes a batch of any size,
    each input with a leading batch axis (shape ``(batch, *traced shape)``),
    and replays the per-sample graph on every sample at once, without
    tracing again.  It returns the mean over the samples of the loss and of
    each gradient (``reduction="mean"``, the default: the sum divided by the
    batch size) or their sum (``reduction="sum"``): the eager engine's
    per-sample losses and gradients added over the samples in order.

    >>> w = Value(0.5)
    >>> step = compile(lambda x, y: (w * x - y) ** 2, (1.0, 2.0), params=[w], batched=True)
    >>> loss, grads = step([3.0, 1.0], [0.0, 0.0])     # mean of 1.5**2 and 0.5**2; of 9 and 1
    >>> loss, grads.tolist()
    (1.25, [5.0])
    """
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
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    if batched and not args:
        raise ValueError("compile(batched=True) needs at least one input to carry the batch axis")
    arrays = [as_array(x, f"example input {i}") for i, x in enumerate(args)]
    param_list = _param_list(params)
    for i, p in enumerate(param_list):
        if not isinstance(p, Value):
            raise TypeError(f"params[{i}] must be a Value, got {type(p).__name__}: {p!r}")
        if p._prev:
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
    if is_anomaly_enabled():
        warnings.warn(
            "compile() inside detect_anomaly(): the compiled step replays with numpy and checks no "
            "gradient for nan or inf; to find where a nan comes from, run the step eagerly "
            "(loss = fn(...); loss.backward()) inside detect_anomaly()",
            RuntimeWarning,
            stacklevel=2,
        )
    with hear_data_reads(_warn_data_read), enable_grad():
        root = fn(*nested)
    if not isinstance(root, Value):
        raise TypeError(f"the traced function must return a Value (the loss), got {type(root).__name__}")
    if root._op == NO_GRAD:
        raise CompileError(
            "the traced function computed its loss under no_grad(), so no graph was recorded and there is "
            "nothing to differentiate: take the no_grad() block away from the loss (compile traces with "
            "grad enabled; a no_grad() inside the function still switches it off)"
        )
    shapes = [a.shape for a in arrays]
    if batched:
        step: CompiledStep = BatchedStep(root, inputs, shapes, param_list, reduction)
    else:
        step = CompiledStep(root, inputs, shapes, param_list)
    if not param_list and step.frozen_values:
        warnings.warn(
            f"compile() got no params, but the loss reads {step.frozen_values} Value(s) made outside the "
            "traced function (a model's weights?): they are frozen at their traced values and get no "
            "gradients, so training would not move them. Pass params=model.parameters()",
            FrozenParametersWarning,
            stacklevel=2,
        )
    return step


def _warn_data_read(what: str, kind: str) -> None:
    warnings.warn(
        f"{what} while micrograd.compile traces: the outcome is baked into the compiled step "
        "and will not follow new inputs or parameters (as with torch.jit.trace)",
        TracerWarning,
        stacklevel=4,
    )
