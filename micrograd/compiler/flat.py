"""Parameters as arrays between steps: a compiled step and an optimizer hand them on as arrays.

A training step reads every parameter's ``.data`` (the compiled step), writes every ``.grad``
(its backward), then reads both and writes ``.data`` again (the optimizer): on microgpt's
4,192 parameters, packing thousands of floats into arrays and back cost more than the
optimizer's arithmetic.  A ``FlatParams`` keeps the parameters' ``.data`` and ``.grad`` as two
float64 arrays, together with the very float objects the Values held when the arrays were
made.  Reading it again compares the Values' numbers with those objects (a list and one
pass of C code, no packing): ``==`` on the two lists, which takes the same object as equal
without looking further, then, at the zeros, identity (``0.0 == -0.0``): the same numbers, so
the arrays stand; a number set since (``p.data = 5.0``, ``load_state_dict``, clipping a
``.grad``) is packed again with the rest.  (An equal number of another type, ``1`` for
``1.0``, is the same number: the arrays stand.)  Where a write follows at once (an
optimizer's ``.data``, a backward's ``.grad`` over fresh zeros), it checks instead, as it
writes each, that the Value still holds the very object the arrays were made of, and sets
back what it wrote at the first that does not (``write_data_if_unchanged``, ``add_rows``):
one pass over the Values rather than a pass to read them and one to write.

Where an optimizer's update passes that check, the Values are held instead of written
(``held.py``): the arrays are then the numbers, and the first look at any of the parameters,
a read or a write, from anywhere, writes them all back (``release``).  While they are held, a
compiled step reads the arrays as they are and adds its gradients into them, and an optimizer
zeroes the gradients there (``zero_grads``), no Value touched.  So reading a parameter between
steps gives the current number, and setting one takes effect at the next step, as if every
number had been written.

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
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from .._core.bookkeeping import ZERO_SUM, add_rows_into_grad
from ..engine import Value
from .errors import load_numpy
from .held import HeldValue, held_class
from .kernels import ordered_sum

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

    __slots__ = (
        "params",
        "_data",
        "_data_objs",
        "_data_zeros",
        "_grad",
        "_grad_objs",
        "_grad_zeros",
        "_held",
        "_held_class",
        "_fresh",
        "_grad_made",
        "_read_held",
        "_hold_backoff",
        "_writes_before_hold",
        "__weakref__",
    )

    def __init__(self, params: Sequence[Value]) -> None:
        self.params = tuple(params)
        # (each once: a write set back finds its place by identity)
        if len(set(map(id, self.params))) != len(self.params):
            raise ValueError("FlatParams: a Value appears more than once in params; pass each once")
        self._data: Any = None
        self._data_objs: list[Any] | None = None
        self._data_zeros: Picker | None = _none
        self._grad: Any = None
        self._grad_objs: list[Any] | None = None
        self._grad_zeros: Picker | None = _none
        # Held (held.py): the Values keep old numbers, the arrays have them; the objects to give
        # back are made then.  ``_fresh``: the zero every .grad holds (``zero_grads``), else None;
        # ``_grad_made``: which .grads the last gradients reached, and the zero of the others.
        self._held = False
        self._held_class: type[HeldValue] | None = None
        self._fresh: float | None = None
        self._grad_made: tuple[Any, float] | None = None
        self._read_held = False  # (whether a step read the arrays while held: holding paid)
        self._hold_backoff = self._writes_before_hold = 0

    def data(self) -> Any:
        """The parameters' ``.data`` now, as an array (None if one is not a float or an int)."""
        if self._held:
            self._read_held = True
            return self._data
        objs = [p.data for p in self.params]
        if self._data_zeros is None:
            self._data_zeros = zeros_of(self._data)
        if not same_numbers(objs, self._data_objs, self._data_zeros):
            self._data, self._data_objs, self._data_zeros = self._kept(packed(objs), objs)
        return self._data

    def grad(self) -> Any:
        """The parameters' ``.grad`` now, as an array (None if one is not a float or an int)."""
        if self._held:
            return self._grad
        objs = [p.grad for p in self.params]
        if self._grad_zeros is None:
            self._grad_zeros = zeros_of(self._grad)
        if not same_numbers(objs, self._grad_objs, self._grad_zeros):
            self._grad, self._grad_objs, self._grad_zeros = self._kept(packed(objs), objs)
        return self._grad

    def known(self) -> tuple[Any, Any] | None:
        """The ``.grad`` and ``.data`` arrays as last read or written, not checked against the
        Values now (None if either is not known): for an update that ``write_data_if_unchanged``
        then writes, checking as it writes that every ``.grad`` and ``.data`` is still what
        these arrays were made of.

        >>> from micrograd import Value
        >>> a = Value(1.0); a.grad = 0.5
        >>> flat = FlatParams([a])
        >>> flat.known() is None, flat.grad().tolist(), flat.data().tolist()
        (True, [0.5], [1.0])
        >>> [x.tolist() for x in flat.known()]
        [[0.5], [1.0]]
        """
        if not self._held and (self._grad_objs is None or self._data_objs is None):
            return None
        return self._grad, self._data

    def write_data(self, data: Any) -> None:
        """Set every parameter's ``.data`` to its number in ``data`` (kept as the array)."""
        if self._held:  # (the objects made if released)
            self._data, self._data_objs, self._data_zeros = self._kept(data, None)
            return
        objs = data.tolist()
        for p, x in zip(self.params, objs):
            p.data = x
        self._data, self._data_objs, self._data_zeros = self._kept(data, objs)

    def write_data_if_unchanged(self, data: Any) -> bool:
        """``write_data(data)`` if every ``.data`` and ``.grad`` still holds the very object that
        ``known()``'s arrays were made of (``data`` computed from those, then right for each
        parameter), checked parameter by parameter as it writes: one pass over the Values where
        reading them to check, then writing, took three; held instead of written (held.py)
        unless holding them did not pay lately (``release``).  Else nothing changed (the ``.data``
        written so far set back) and False: read them (``grad()``, ``data()``) and compute again.

        >>> from micrograd import Value
        >>> a, b = Value(1.0), Value(2.0)
        >>> flat = FlatParams([a, b]); _ = flat.grad(), flat.data()
        >>> flat.write_data_if_unchanged(flat.data() + 1), a.data, b.data
        (True, 2.0, 3.0)
        >>> b.grad = 5.0                                     # set since: nothing written
        >>> flat.write_data_if_unchanged(flat.data() + 1), a.data, b.data
        (False, 2.0, 3.0)
        """
        if self._held:
            self.write_data(data)
            return True
        data_objs, grad_objs = self._data_objs, self._grad_objs
        if data_objs is None or grad_objs is None:
            return False
        hold = self._writes_before_hold == 0
        self._writes_before_hold -= not hold
        held = self._held_class = self._held_class or held_class(self)
        objs = repeat(None) if hold else data.tolist()
        params = self.params
        # (``is``, not ``==``: the same object holds the same number, signed zeros included)
        for p, x, old, g in zip(params, objs, data_objs, grad_objs):
            if p.data is not old or p.grad is not g:
                break
            if hold:
                p.__class__ = held  # (its .data written when something looks at it)
            else:
                p.data = x
        else:
            if hold:
                self._held, self._fresh, self._grad_made, self._read_held = True, None, None, False
                self.write_data(data)
            else:
                self._data, self._data_objs, self._data_zeros = self._kept(data, objs)  # type: ignore[arg-type]
            return True
        for q, old in zip(params[: index_of(params, p)], data_objs):
            q.__class__ = Value  # (those written or held before the one set since: as they were)
            q.data = old
        return False

    def release(self) -> None:
        """Write the held numbers into the Values, plain Values again (held.py: the first look at
        any held parameter calls this); nothing to do if they are not held."""
        if not self._held:
            return
        data_objs = self._data.tolist() if self._data_objs is None else self._data_objs
        grad_objs = self._grad_objs
        if grad_objs is None and self._fresh is not None:
            grad_objs = [self._fresh] * len(self.params)  # (zero_grads: the very zero in each)
        elif grad_objs is None:
            reached, zero = self._grad_made  # type: ignore[misc]
            grad_objs = first_grads(self._grad, reached, zero, load_numpy().flatnonzero(~reached).tolist())[1]
        for p, x, g in zip(self.params, data_objs, grad_objs):
            p.__class__ = Value
            p.data = x
            p.grad = g
        self._held, self._fresh, self._grad_made = False, None, None
        self._data_objs, self._data_zeros = data_objs, None
        self._grad_objs, self._grad_zeros = grad_objs, None
        # Held, then looked at before a step read the arrays (a loop that reads a parameter at
        # every step): holding cost more than writing.  Written the next 1, 2, 4, ... 64 times.
        self._hold_backoff = 0 if self._read_held else min(2 * self._hold_backoff or 1, 64)
        self._writes_before_hold = self._hold_backoff

    def zero_grads(self, zero: float) -> bool:
        """While the parameters are held: every ``.grad`` set to ``zero`` (an optimizer's
        ``zero_grad``), no Value written; else False (nothing done: set them one by one)."""
        if not self._held:
            return False
        self._grad, self._grad_objs, self._grad_zeros = self._kept(load_numpy().zeros(len(self.params)), None)
        self._fresh, self._grad_made = zero, None
        return True

    def add_grad(self, grads: Any, reached: Any) -> None:
        """Add ``grads`` into the ``.grad`` of the parameters ``reached`` marks, as ``backward()``
        adds a gradient, the others left alone: ``add_rows`` with one row."""
        np = load_numpy()
        self.add_rows(np.asarray(grads, dtype=np.float64)[None, :], np.asarray(reached, dtype=bool)[None, :])

    def add_rows(self, rows: Any, reached: Any) -> None:
        """Add the gradients of several passes into the parameters' ``.grad`` (``rows[k][i]`` where
        ``reached[k][i]``), as ``backward()`` run pass after pass adds them, zeros' signs included;
        the ``.grad``s written are kept, objects and array (an optimizer reads them without
        packing).  Over fresh zeros (``_add_to_fresh``, the common case: after ``zero_grad()``),
        else by the general rule, ``add_rows_into_grad``."""
        np = load_numpy()
        rows, reached = np.asarray(rows, dtype=np.float64), np.asarray(reached, dtype=bool)
        if self._add_to_held(rows, reached):
            return
        self.release()  # (held .grads that are not all zero_grads' zero: added into the Values)
        if self._add_to_fresh(rows, reached):
            return
        kept = add_rows_into_grad(self.params, rows, reached)
        if kept is None:  # (added one by one: unknown objects, read again when asked)
            self._grad, self._grad_objs, self._grad_zeros = None, None, _none
        else:
            self._grad, self._grad_objs, self._grad_zeros = self._kept(kept[1], kept[0])

    def _add_to_held(self, rows: Any, reached: Any) -> bool:
        """``add_rows`` while the parameters are held with every ``.grad`` the zero ``zero_grads``
        set: as ``_add_to_fresh``, into the array alone (the objects are made if released)."""
        zero = self._fresh
        if zero is None:
            return False
        summed = passes_summed(rows, reached, len(self.params))
        if summed is None:
            return False
        total, touched = summed
        self._grad, self._grad_objs, self._grad_zeros = self._kept(
            load_numpy().where(touched, total, zero), None
        )
        self._fresh, self._grad_made = None, (touched, zero)
        return True

    def _add_to_fresh(self, rows: Any, reached: Any) -> bool:
        """``add_rows`` where every ``.grad`` is the very zero object of the first (as
        ``zero_grad()`` leaves them, and new Values): each ``.grad`` is then its passes' gradients
        added in order from -0.0 (which takes the first as it is), a +0.0 sum marked ``ZERO_SUM``
        and one no pass reached left alone (``first_grads``).  Checked parameter by parameter as
        it writes: one pass over the Values, where reading every ``.grad`` and checking them all
        first took 0.22 ms of 0.79 (microgpt's 4,192, 16 names).  False (the ``.grad``s
        written so far set back) where one is not that zero, or the arrays are not one row per
        pass of one number per parameter."""
        params = self.params
        first = params[0].grad if params else None
        if type(first) is not float or first or first is ZERO_SUM:
            return False
        summed = passes_summed(rows, reached, len(params))
        if summed is None:
            return False
        total, touched = summed
        new, objs = first_grads(total, touched, first, load_numpy().flatnonzero(~touched).tolist())
        for p, x in zip(params, objs):
            if p.grad is not first:
                break
            p.grad = x
        else:
            self._grad, self._grad_objs, self._grad_zeros = self._kept(new, objs)
            return True
        for q in params[: index_of(params, p)]:
            q.grad = first  # (those written before the one that differs: back to the fresh zero)
        return False

    @staticmethod
    def _kept(array: Any, objs: list[Any] | None) -> tuple[Any, list[Any] | None, Picker | None]:
        """What to keep of ``array``, made of the numbers ``objs`` (None while held: made if
        released): the array (read-only: shared by a step and an optimizer, never changed in
        place), the objects, and where the zeros are (None: worked out when first needed,
        ``zeros_of``: a step whose arrays are checked as they are written never needs it)."""
        if array is None:
            return None, None, _none  # (not numbers: read again, and the caller's scalar path says what)
        array.flags.writeable = False
        return array, objs, None


def passes_summed(rows: Any, reached: Any, n: int) -> tuple[Any, Any] | None:
    """Each parameter's gradients from passes ``rows`` (where ``reached``) added in order from -0.0,
    and whether any pass reached it; None unless the arrays are one row per pass of ``n`` numbers."""
    if rows.ndim != 2 or rows.shape != reached.shape or rows.shape[1] != n or not len(rows):
        return None
    np = load_numpy()
    touched = reached[0] if len(rows) == 1 else reached.any(axis=0)
    with np.errstate(all="ignore"):  # inf and nan are sums here, as in the engine
        return ordered_sum(np, np.where(reached, rows, -0.0)), touched  # (-0.0: adds nothing)


def first_grads(grads: Any, reached: Any, first: float, unreached: list[int]) -> tuple[Any, list[Any]]:
    """What ``backward()`` leaves in ``.grad``s that all hold the zero ``first`` (no gradient yet)
    when the gradients that reach them add up to ``grads`` (added in order from -0.0: the first
    as it is): as an array, and as the objects to set (``unreached``, the indices where
    ``reached`` is False: ``first`` itself, left alone; a +0.0 gradient: ``ZERO_SUM``, a sum of
    zeros).

    >>> new, objs = first_grads(load_numpy().array([2.0, 0.0, 5.0]), [True, True, False], 0.0, [2])
    >>> new.tolist(), objs == [2.0, 0.0, 0.0], objs[1] is ZERO_SUM
    ([2.0, 0.0, 0.0], True, True)
    """
    np = load_numpy()
    new = np.where(reached, grads, first)
    objs = new.tolist()
    for i in np.flatnonzero(reached & (new == 0.0) & ~np.signbit(new)).tolist():
        objs[i] = ZERO_SUM  # a first gradient of +0.0: a sum of zeros now, as backward() marks it
    for i in unreached:
        objs[i] = first  # (left alone: the very object)
    return new, objs


def index_of(items: Sequence[Any], item: Any) -> int:
    """Where ``item`` is in ``items``, by identity (a Value's ``==`` may be an op).

    >>> a, b = [1], [1]
    >>> index_of((a, b), b)
    1
    """
    return next(i for i, x in enumerate(items) if x is item)


Picker = Callable[[list[Any]], Sequence[Any]]


def _none(objs: list[Any]) -> tuple[Any, ...]:
    return ()


def zeros_of(array: Any) -> Picker:
    """A ``picker`` of where ``array`` holds zeros (``_none`` without an array)."""
    if array is None:
        return _none
    return picker(load_numpy().flatnonzero(array == 0.0).tolist())


def picker(indices: list[int]) -> Picker:
    """A function giving the items of a list at ``indices``, in C (``itemgetter``).

    >>> picker([2, 0])(["a", "b", "c"]), picker([1])(["a", "b"]), picker([])(["a"])
    (('c', 'a'), ('b',), ())
    """
    if len(indices) > 1:
        return operator.itemgetter(*indices)
    if indices:
        at = indices[0]
        return lambda objs: (objs[at],)
    return _none


def same_numbers(objs: list[Any], old: list[Any] | None, zeros: Picker) -> bool:
    """Whether ``objs`` hold the numbers of ``old`` (None: unknown, no): equal by ``==`` (a C loop
    that takes the same object as equal at once: 30 times faster than checking each by identity,
    on microgpt's 4,192), and at the zeros (``zeros`` picks where), the same objects, as ``0.0 ==
    -0.0`` and a .grad's 0.0 may be ``ZERO_SUM``.  (nan is not equal to a new nan: read again.)

    >>> a, b = 0.0, 2.0
    >>> same_numbers([a, b], [a, 2.0], picker([0])), same_numbers([-0.0, b], [a, b], picker([0]))
    (True, False)
    """
    if old is None:
        return False
    try:
        if objs != old:
            return False
    except Exception:  # (an object whose == is not a truth value, such as an array: not the same)
        return False
    return all(map(operator.is_, zeros(objs), zeros(old)))


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
