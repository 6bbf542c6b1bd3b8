"""Parameters as arrays between steps: a compiled step and an optimizer hand them on as arrays.

A training step reads every parameter's ``.data`` (the compiled step), writes every ``.grad``
(its backward), then reads both and writes ``.data`` again (the optimizer): on microgpt's
4,192 parameters, packing thousands of floats into arrays and back cost more than the
optimizer's arithmetic.  A ``FlatParams`` keeps the parameters' ``.data`` and ``.grad`` as two
float64 arrays, together with the very float objects the Values held when the arrays were
made.  Reading it again compares the Values' floats with those objects, by identity (a list
and one pass of C code, no packing): the same objects are the same numbers, so the arrays
stand; a float set since (``p.data = 5.0``, ``load_state_dict``, clipping a ``.grad``) is a
new object, and only then are the numbers packed again.  The Values stay the truth: every
write goes to their ``.data`` and ``.grad`` as well, so reading them between steps gives
the current numbers, and setting them takes effect at the next step.

The compiled steps of a model and its optimizer share one ``FlatParams`` (``shared``, by
the identity of the parameters, in their order), so that what one writes the other reads
as an array; given the parameters in another order they keep one each, and are as right.

>>> from micrograd import Value
>>> a, b = Value(1.0), Value(2.0)
>>> flat = shared([a, b])
>>> flat.data().tolist()
[1.0, 2.0]
>>> flat.write_data(flat.data() * 3); a.data, b.data     # the Values' .data, set
(3.0, 6.0)
>>> b.data = -1.0; flat.data().tolist()                   # a float set since: read again
[3.0, -1.0]
"""

from __future__ import annotations

import operator
import struct
import weakref
from collections.abc import Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

from .._core.bookkeeping import ZERO_SUM, add_rows_into_grad
from .errors import load_numpy

if TYPE_CHECKING:
    from ..engine import Value

__all__ = ["FlatParams", "shared"]

_NUMBERS = {float, int}


def packed(numbers: list[Any]) -> Any:
    """``numbers`` as a float64 array, or None unless each is a float or an int (an int converts
    as the float arithmetic converts it): packed as C doubles, a third of ``np.asarray``'s time."""
    if not set(map(type, numbers)) <= _NUMBERS:
        return None
    try:
        return load_numpy().frombuffer(struct.pack(f"{len(numbers)}d", *numbers))
    except (OverflowError, struct.error):  # an int past the floats (which error: by Python version)
        return None


class FlatParams:
    """The ``.data`` and ``.grad`` of ``params`` as float64 arrays (read-only: each write is a new
    array), and the float objects the Values held when each array was made."""

    __slots__ = ("params", "_data", "_data_objs", "_grad", "_grad_objs", "__weakref__")

    def __init__(self, params: Sequence[Value]) -> None:
        self.params = tuple(params)
        self._data: Any = None
        self._data_objs: list[Any] | None = None
        self._grad: Any = None
        self._grad_objs: list[Any] | None = None

    def data(self) -> Any:
        """The parameters' ``.data`` now, as an array (None if one is not a float or an int)."""
        objs = [p.data for p in self.params]
        if self._data_objs is None or not all(map(operator.is_, objs, self._data_objs)):
            self._data, self._data_objs = self._frozen(packed(objs)), objs
        return self._data

    def grad(self) -> Any:
        """The parameters' ``.grad`` now, as an array (None if one is not a float or an int)."""
        objs = [p.grad for p in self.params]
        if self._grad_objs is None or not all(map(operator.is_, objs, self._grad_objs)):
            self._grad, self._grad_objs = self._frozen(packed(objs)), objs
        return self._grad

    def write_data(self, data: Any) -> None:
        """Set every parameter's ``.data`` to its number in ``data`` (kept as the array)."""
        objs = data.tolist()
        for p, x in zip(self.params, objs):
            p.data = x
        self._data, self._data_objs = self._frozen(data), objs

    def add_grad(self, grads: Any, reached: Any) -> None:
        """Add ``grads`` into the ``.grad`` of the parameters ``reached`` marks, as ``backward()``
        adds a gradient (``add_rows_into_grad`` with one row), the others left alone.

        Every ``.grad`` a fresh zero, the same float object (as ``zero_grad()`` leaves them, and
        a new Value's), a gradient is taken as it is and a +0.0 one marks a sum of zeros
        (``ZERO_SUM``): written at once, and kept as the array.  Else added by the general rule."""
        np = load_numpy()
        olds = [p.grad for p in self.params]
        first = olds[0] if olds else None
        fresh = type(first) is float and not first and first is not ZERO_SUM
        if not (fresh and all(map(operator.is_, olds, repeat(first)))):
            add_rows_into_grad(self.params, grads[None, :], reached[None, :])
            self._grad_objs = None  # (unknown objects: read again when asked)
            return
        new = np.where(reached, grads, first)
        objs = new.tolist()
        for i in np.flatnonzero(reached & (new == 0.0) & ~np.signbit(new)).tolist():
            objs[i] = ZERO_SUM  # a first gradient of +0.0: a sum of zeros now, as backward() marks it
        for i in np.flatnonzero(~reached).tolist():
            objs[i] = first  # (left alone: the very object)
        for p, x in zip(self.params, objs):
            p.grad = x
        self._grad, self._grad_objs = self._frozen(new), objs

    @staticmethod
    def _frozen(array: Any) -> Any:
        if array is not None:
            array.flags.writeable = False  # (shared by a step and an optimizer: never changed in place)
        return array


# One FlatParams per list of parameters, while something holds it (a step, an optimizer).
_shared: weakref.WeakValueDictionary[tuple[int, int, int], FlatParams] = weakref.WeakValueDictionary()


def shared(params: Sequence[Value]) -> FlatParams:
    """The ``FlatParams`` of ``params`` (the same Values in the same order) that others hold, or a
    new one; hold it, as it lives only while held."""
    params = tuple(params)
    key = (len(params), id(params[0]) if params else 0, id(params[-1]) if params else 0)
    flat = _shared.get(key)
    if flat is None or not all(map(operator.is_, flat.params, params)):
        flat = _shared[key] = FlatParams(params)
    return flat
