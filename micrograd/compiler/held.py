"""Parameters held as arrays between compiled steps: the Values are written only when looked at.

An optimizer that steps on arrays (``nn.optim``) and a compiled step share the parameters'
``.data`` and ``.grad`` as arrays (``flat.py``).  Writing each of microgpt's 4,192 parameters
back at every step (its ``.grad`` after the backward, its ``.data`` after the update), and
checking each before reading the arrays again, cost as much as the step's arithmetic: 0.6 ms
of a 1.5 ms step.  So after an optimizer's update the Values are *held* instead: each keeps its
old numbers, and its class becomes its ``FlatParams``' own ``HeldValue``, whose ``.data`` and
``.grad`` give every parameter held with it its numbers first (``FlatParams.release``: the
Values plain ``Value``s again, the arrays' numbers in them), then read or set its own.  So no
code ever sees a stale number: the first look at any held parameter, a read or a write,
from anywhere, writes them all back; then the next step reads them again, as before.  (Where
something looks at them after every step, before a step has read the arrays, holding costs
more than writing: they are then written at the next 1, 2, 4, ... 64 updates before holding is
tried again.)

Only ``.data`` and ``.grad`` are held: the label, the op, hooks are the Value's own.  A held
parameter is still a ``Value`` (``isinstance``); ``type(p)`` names ``HeldValue`` until it is
looked at.  (``micrograd.func.reads.WatchedValue`` is the other class a Value takes for a while.)

>>> from micrograd import Value
>>> from micrograd.compiler.flat import FlatParams
>>> a, b = Value(1.0), Value(2.0)
>>> flat = FlatParams([a, b]); _ = flat.grad(), flat.data()
>>> flat.write_data_if_unchanged(flat.data() * 10)   # an optimizer's update: held, not written
True
>>> type(a).__name__, flat.data().tolist()
('HeldValue', [10.0, 20.0])
>>> b.data, type(a).__name__                           # a look at one gives them all back
(20.0, 'Value')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ..engine import Value

__all__ = ["HeldValue", "held_class", "release", "zero_held_grads"]


class HeldValue(Value):
    """A parameter whose ``.data`` and ``.grad`` its ``holder`` (a ``FlatParams``) keeps as arrays;
    each ``FlatParams`` holds its parameters as a subclass of its own (``held_class``)."""

    __slots__ = ()
    holder: ClassVar[Any] = None

    @property
    def data(self) -> float:
        release(self)
        return self.data  # (the Value's own slot now)

    @data.setter
    def data(self, value: float) -> None:
        release(self)
        self.data = value

    @property
    def grad(self) -> float:
        release(self)
        return self.grad

    @grad.setter
    def grad(self, value: float) -> None:
        release(self)
        self.grad = value

    def __copy__(self) -> Value:
        release(self)
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> Any:  # (pickle and deepcopy: a plain Value's)
        release(self)
        return self.__reduce_ex__(protocol)


def held_class(holder: Any) -> type[HeldValue]:
    """The class ``holder``'s parameters take while it holds them: a ``HeldValue`` that knows it."""
    return type("HeldValue", (HeldValue,), {"__slots__": (), "holder": holder, "__module__": __name__})


def release(v: Value) -> None:
    """Give ``v``, and every parameter held with it, its numbers back: plain Values again."""
    holder = type(v).holder  # type: ignore[attr-defined]
    if holder is not None:
        holder.release()
    if type(v) is not Value:  # (a class made by held_class, its holder gone: the slots are right)
        v.__class__ = Value


def zero_held_grads(params: Sequence[Value]) -> bool:
    """Every ``.grad`` of ``params`` set to 0.0 where they are held, if they are the very parameters
    one ``FlatParams`` holds, in its order (``model.zero_grad()`` after an optimizer of
    ``model.parameters()`` stepped on arrays): no Value is written, they stay held.  Else False,
    nothing done (set them one by one).

    >>> from micrograd import Value
    >>> from micrograd.compiler.flat import FlatParams
    >>> a, b = Value(1.0), Value(2.0)
    >>> flat = FlatParams([a, b]); _ = flat.grad(), flat.data()
    >>> flat.write_data_if_unchanged(flat.data() * 10)
    True
    >>> zero_held_grads([b, a]), zero_held_grads([a, b]), type(a).__name__
    (False, True, 'HeldValue')
    >>> a.grad, b.grad, b.data
    (0.0, 0.0, 20.0)
    """
    holder = type(params[0]).holder if params and isinstance(params[0], HeldValue) else None
    return holder is not None and holder.params == tuple(params) and bool(holder.zero_grads(0.0))
