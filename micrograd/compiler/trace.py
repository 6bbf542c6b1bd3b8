"""Phase 1 of ``micrograd.compile``: the trace.

``trace`` calls the loss function once on Values made from the example inputs, with
grad recording on, and returns what it recorded (``Trace``): the loss, the input
Values, the shapes they came in and the parameters.  Reading a Value as a number
while tracing (a comparison, ``float(v)``, ``v.item()``) warns, since the outcome
is baked into the graph.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.grad_mode import enable_grad, hear_data_reads, is_anomaly_enabled
from .._core.nodes import NO_GRAD
from ..engine import Value
from ..func.reads import ReadLog, constants_read, unwatch, watch_reads
from .errors import CompileError, load_numpy

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]


class TracerWarning(UserWarning):
    """The traced function turned a Value into a Python bool or float: whatever it
    decided with it is fixed in the compiled step (``torch.jit.TracerWarning``'s role)."""


@dataclass(frozen=True)
class Trace:
    """What tracing recorded: the ``root`` (the loss), the ``inputs`` (one Value per number
    of the example inputs, flattened in order), the ``shapes`` they came in and the ``params``."""

    root: Value
    inputs: list[Value]
    shapes: list[tuple[int, ...]]
    params: list[Value]


def as_array(x: object, what: str) -> Floats:
    """``x`` as a float64 array, or a TypeError that names ``what`` it is."""
    np = load_numpy()
    try:
        arr: Floats = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"{what} must be a number, a (nested) list of numbers or a numpy array, "
            f"got {type(x).__name__}: {e}"
        ) from None
    return arr


def nest(values: list[Value], shape: tuple[int, ...]) -> Any:
    """Values in nested lists of ``shape``, as ``ndarray.tolist()`` would nest numbers."""
    if not shape:
        return values[0]
    if len(shape) == 1:
        return values
    step = len(values) // shape[0] if shape[0] else 0
    return [nest(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def param_list(params: Any) -> list[Value]:
    """``params`` as a list of distinct leaf Values, or an error that says what to pass."""
    if isinstance(params, Value):
        return [params]
    if callable(params):
        raise TypeError(
            f"compile(params=...) got a function or method ({getattr(params, '__qualname__', params)!r}); "
            "call it: params=model.parameters()"
        )
    try:
        found = list(params)
    except TypeError:
        raise TypeError(
            "compile(params=...) takes a list of Values (e.g. model.parameters()), "
            f"got {type(params).__name__}"
        ) from None
    for i, p in enumerate(found):
        if not isinstance(p, Value):
            raise TypeError(f"params[{i}] must be a Value, got {type(p).__name__}: {p!r}")
        if p._prev:
            raise ValueError(
                f"params[{i}] is the output of op {p._op!r}, not a leaf; parameters must be leaf Values"
            )
    if len(set(found)) != len(found):
        raise ValueError("params holds the same Value more than once")
    return found


def trace(fn: Callable[..., Value], example_inputs: tuple[Any, ...], params: Iterable[Value]) -> Trace:
    """Call ``fn`` once on Values made from ``example_inputs`` and return what it recorded.

    >>> w = Value(3.0)
    >>> t = trace(lambda x: w * x, (2.0,), [w])
    >>> t.root.data, t.shapes, len(t.inputs)
    (6.0, [()], 1)
    """
    arrays = [as_array(x, f"example input {i}") for i, x in enumerate(example_inputs)]
    found = param_list(params)
    inputs = [Value(x) for arr in arrays for x in arr.ravel().tolist()]
    nested, start = [], 0
    for arr in arrays:
        nested.append(nest(inputs[start : start + arr.size], arr.shape))
        start += arr.size
    if is_anomaly_enabled():
        warnings.warn(
            "compile() inside detect_anomaly(): the compiled step replays with numpy and checks no "
            "gradient for nan or inf; to find where a nan comes from, run the step eagerly "
            "(loss = fn(...); loss.backward()) inside detect_anomaly()",
            RuntimeWarning,
            stacklevel=4,
        )
    for v in inputs:
        watch_reads(v)  # (.data reads noted, to warn of those that reach the loss as constants)
    try:
        with hear_data_reads(warn_data_read), enable_grad(), ReadLog() as log:
            root = fn(*nested)
    finally:
        unwatch(inputs)
    if not isinstance(root, Value):
        raise TypeError(f"the traced function must return a Value (the loss), got {type(root).__name__}")
    if root._op == NO_GRAD:
        raise CompileError(
            "the traced function computed its loss under no_grad(), so no graph was recorded and there is "
            "nothing to differentiate: take the no_grad() block away from the loss (compile traces with "
            "grad enabled; a no_grad() inside the function still switches it off)"
        )
    warn_constants_read(root, log, [*inputs, *found])
    return Trace(root, inputs, [a.shape for a in arrays], found)


def warn_constants_read(root: Value, log: ReadLog, fed: list[Value]) -> None:
    """A ``TracerWarning`` at each line whose ``x.data`` read reached the loss as a constant
    (``x.data * x``): the step would keep the traced number.  A read that only picks a branch
    (``if x.data > 0``) is not warned of (the branch is baked in, as the docs say)."""
    for (file, line), number in constants_read(root, log, fed):
        warnings.warn_explicit(
            f"x.data read while micrograd.compile traces reached the loss as the constant {number!r}: the "
            "compiled step keeps this traced number for every input. Compute with the Value itself "
            "(x, not x.data)",
            TracerWarning,
            file,
            line,
        )


def warn_data_read(what: str, kind: str) -> None:
    """A Value read as a number while tracing: a ``TracerWarning`` pointing at the read."""
    warnings.warn(
        f"{what} while micrograd.compile traces: the outcome is baked into the compiled step "
        "and will not follow new inputs or parameters (as with torch.jit.trace)",
        TracerWarning,
        stacklevel=4,
    )
