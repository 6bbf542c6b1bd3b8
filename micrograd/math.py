"""Math that works on floats, Values and numpy arrays alike.

Write an op's ``forward`` and ``backward`` with these functions (and the
operators ``+ - * /``) and the one definition runs in every mode of the
engine: on floats in ``backward()``, on Values in ``grad(...,
create_graph=True)`` (so the backward pass is itself differentiable), and on
numpy arrays in ``micrograd.compile``.

* floats follow PyTorch's float64 semantics: ``exp(1000.0)`` is inf,
  ``log(0.0)`` is -inf, ``div(1.0, 0.0)`` is inf, never a Python exception;
* a Value gets the engine's op (``exp(v)`` is ``v.exp()``), recorded in the graph;
* on an array, the transcendental functions (exp, log, tanh, pow, ...) apply
  the float function above to each element, so compiled replay gives the very
  numbers of the eager engine, bit for bit; the arithmetic (``abs``, ``sqrt``,
  ``div``, ``where``, ...) is numpy's, which IEEE 754 makes exact as well.

Branch on data with ``where(cond, a, b)``, never with a Python ``if``: on
floats and Values ``cond`` is a bool and ``where`` picks a branch; on arrays it
picks element by element.  Compare with ``<``, ``<=``, ``>``, ``>=`` or
``equal`` (``==`` on Values compares identity, so that Values can be dict keys).

>>> from micrograd import Value
>>> from micrograd import math as mm
>>> mm.exp(0.0), mm.exp(Value(0.0)), mm.where(2.0 > 0, "yes", "no")
(1.0, Value(data=1.0, grad=0.0), 'yes')
"""

from __future__ import annotations

import builtins
import math as _pymath
import numbers
from collections.abc import Callable
from typing import Any

from . import fmath
from .coerce import is_value

__all__ = [
    "abs",
    "cos",
    "div",
    "equal",
    "exp",
    "expm1",
    "isfinite",
    "log",
    "log1p",
    "pow",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "tanh",
    "where",
]


_np: Any = None  # numpy, once an array needs it (importing micrograd does not import it)


def _numpy() -> Any:
    global _np
    if _np is None:
        import numpy

        _np = numpy
    return _np


def _array(x: Any, name: str) -> Any:
    """``x`` as a float64 array, or a clear TypeError: these functions take floats, Values and arrays."""
    np = _numpy()
    if isinstance(x, (np.ndarray, numbers.Real, np.generic)):
        return np.asarray(x, dtype=np.float64)
    raise TypeError(
        f"micrograd.math.{name} takes a number, a Value or a numpy array, got {type(x).__name__}: {x!r}"
    )


def _elementwise(f: Callable[..., float], *arrays: Any) -> Any:
    """``f`` applied to each element of the (broadcast) arrays, as a float64 array."""
    np = _numpy()
    parts = np.broadcast_arrays(*(_array(a, f.__name__) for a in arrays))
    shape = parts[0].shape
    flat = [p.ravel().tolist() for p in parts]
    return np.fromiter(map(f, *flat), dtype=np.float64, count=parts[0].size).reshape(shape)


def _unary(
    x: Any,
    method: str,
    on_float: Callable[[float], float],
    on_array: Callable[[Any], Any] | None = None,
    raising: Callable[[float], float] | None = None,
) -> Any:
    """``on_float`` on a number, the Value method ``method`` on a Value, and on an array
    ``on_array`` (a numpy function that gives the float's very result), else ``on_float``
    element by element: first ``raising``, the ``math`` function that gives the same
    numbers where it does not raise, with no Python call per element (a third less time)."""
    if type(x) is float:
        return on_float(x)
    if is_value(x):
        return getattr(x, method)()  # the engine's op: recorded in the graph
    if isinstance(x, numbers.Real):
        return on_float(float(x))
    if on_array is not None:
        return on_array(_array(x, method))
    if raising is not None:
        try:
            return _elementwise(raising, x)
        except (OverflowError, ValueError):  # an element it refuses: on_float's inf or nan there
            pass
    return _elementwise(on_float, x)


def exp(x: Any) -> Any:
    """e**x; inf on overflow."""
    return _unary(x, "exp", fmath.exp, raising=_pymath.exp)


def expm1(x: Any) -> Any:
    """e**x - 1, accurate near 0."""
    return _unary(x, "expm1", fmath.expm1, raising=_pymath.expm1)


def log(x: Any) -> Any:
    """Natural logarithm; -inf at 0, nan below 0."""
    return _unary(x, "log", fmath.log, raising=_pymath.log)


def log1p(x: Any) -> Any:
    """log(1 + x), accurate near 0; -inf at -1, nan below."""
    return _unary(x, "log1p", fmath.log1p, raising=_pymath.log1p)


def tanh(x: Any) -> Any:
    """Hyperbolic tangent."""
    return _unary(x, "tanh", fmath.tanh, raising=_pymath.tanh)


def sigmoid(x: Any) -> Any:
    """1 / (1 + e**-x), without overflow errors."""
    return _unary(x, "sigmoid", fmath.sigmoid)


def sin(x: Any) -> Any:
    """Sine (radians); nan at +-inf."""
    return _unary(x, "sin", fmath.sin, raising=_pymath.sin)


def cos(x: Any) -> Any:
    """Cosine (radians); nan at +-inf."""
    return _unary(x, "cos", fmath.cos, raising=_pymath.cos)


def sqrt(x: Any) -> Any:
    """Square root; nan below 0."""
    return _unary(x, "sqrt", fmath.sqrt, _array_sqrt)


def _array_sqrt(a: Any) -> Any:
    np = _numpy()
    with np.errstate(invalid="ignore"):  # nan below 0, as on floats
        return np.sqrt(a)  # correctly rounded by IEEE 754: the float's very result


def abs(x: Any) -> Any:  # noqa: A001 - named for what it is, as builtins.abs
    """|x|."""
    return _unary(x, "abs", builtins.abs, lambda a: _numpy().abs(a))


def sign(x: Any) -> Any:
    """-1.0, 0.0 or 1.0 (0.0 for nan, as ``torch.sign``).  On a Value it is a
    plain number: sign is flat wherever it has a derivative."""
    if type(x) is float:
        return fmath.sign(x)
    if is_value(x):
        return fmath.sign(x.data)
    if isinstance(x, numbers.Real):
        return fmath.sign(float(x))
    np = _numpy()
    a = _array(x, "sign")
    return (a > 0.0).astype(np.float64) - (a < 0.0)


def pow(a: Any, b: Any) -> Any:  # noqa: A001 - named for what it is, as builtins.pow
    """a**b with C's pow semantics: inf on overflow and at 0**-y, nan for a
    negative base with a non-integer exponent."""
    if type(a) is float and type(b) is float:
        return fmath.pow(a, b)
    if is_value(a) or is_value(b):
        return a**b
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return fmath.pow(float(a), float(b))
    return _elementwise(fmath.pow, a, b)


def div(a: Any, b: Any) -> Any:
    """a / b; x / 0 is a signed inf (nan for 0 / 0) instead of ZeroDivisionError."""
    if type(a) is float and type(b) is float:
        return fmath.div(a, b)
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return fmath.div(float(a), float(b))
    if is_value(a) or is_value(b):
        return a / b  # the engine's op
    np = _numpy()
    with np.errstate(divide="ignore", invalid="ignore"):  # inf and nan, as on floats
        return _array(a, "div") / _array(b, "div")


def where(cond: Any, a: Any, b: Any) -> Any:
    """``a`` where ``cond`` holds, else ``b``: a branch on floats and Values
    (``cond`` is a bool), element by element on arrays."""
    if cond is True:
        return a
    if cond is False:
        return b
    if getattr(cond, "ndim", 0):  # an array
        return _numpy().where(cond, a, b)
    return a if cond else b  # a numpy bool scalar, or a 0-d array


def equal(a: Any, b: Any) -> Any:
    """a == b by value (on Values too, whose ``==`` is identity)."""
    x = a.data if is_value(a) else a
    y = b.data if is_value(b) else b
    return x == y


def isfinite(x: Any) -> Any:
    """True where x is neither inf nor nan."""
    if type(x) is float:
        return _pymath.isfinite(x)
    if is_value(x):
        return _pymath.isfinite(x.data)
    if isinstance(x, numbers.Real):
        return _pymath.isfinite(x)
    return _numpy().isfinite(_array(x, "isfinite"))
