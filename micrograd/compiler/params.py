"""Whether a model's parameters are still the Values a compiled step traced.

A step reads its parameters' ``.data`` at every call, but it holds the Values it traced: a
parameter *replaced* in the model (``layer.w[0] = Value(5.0)``) is a Value the step never
saw, so the step would go on with the old one, silently.  Setting ``.data`` (as
``load_state_dict`` does) keeps the Value and is followed.

``model.parameters()`` is the truth, but building it walks the model in Python (8 ms for
microgpt's 4,192 parameters, as long as a compiled step).  So a ``Watch`` notes, once,
the lists, tuples and attributes through which the model holds its parameters, and at
every call compares each with what it held, by identity (``==`` on lists of Values:
C speed); only if one differs does it build ``model.parameters()``.  A model it cannot
read that way (parameters ``parameters()`` computes) gets ``parameters()`` at every call.

>>> from micrograd import Value
>>> a, b = Value(1.0), Value(2.0)
>>> replaced_at([a, b], (a, b)) is None, replaced_at([a, Value(2.0)], (a, b))
(True, 1)
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..engine import Value


class HasParameters(Protocol):
    """A model: anything with a ``parameters()`` method that returns its parameters in order."""

    def parameters(self) -> Sequence[Value]: ...


class ReplacedParameterError(RuntimeError):
    """A compiled step's model no longer holds the Values it traced (the message says which)."""


class RetraceWarning(UserWarning):
    """A compiled loss traced its model again, because a parameter was replaced by a new Value."""


def replaced_at(now: Sequence[Value], traced: Sequence[Value]) -> int | None:
    """The first index where ``now`` is not ``traced`` (by identity), or None if they are the same
    Values; a change of length is the shorter one's length."""
    if len(now) == len(traced) and all(map(operator.is_, now, traced)):
        return None
    return next((i for i, (a, b) in enumerate(zip(now, traced)) if a is not b), min(len(now), len(traced)))


def what_changed(now: Sequence[Value], traced: Sequence[Value], at: int, name: str = "") -> str:
    """A sentence on what changed at index ``at`` (from ``replaced_at``), the parameter's ``name``
    given or not."""
    if len(now) != len(traced):
        return f"the model has {len(now)} parameters now, the step traced {len(traced)}"
    return (
        f"the model's parameter {at} ({name or f'model.parameters()[{at}]'}) is a new Value, "
        f"{now[at]!r}, not the {traced[at]!r} the step traced"
    )


def name_of(model: object, at: int) -> str:
    """The name of ``model``'s parameter ``at`` if it names them (an ``nn.Module``), else ''."""
    named = getattr(model, "named_parameters", None)
    names = [n for n, _ in named()] if callable(named) else []
    return str(names[at]) if at < len(names) else ""


def check_parameters(now: Sequence[Value] | None, traced: Sequence[Value], model: object = None) -> None:
    """Nothing if ``now`` is None (from ``watcher``) or the ``traced`` Values; else a
    ``ReplacedParameterError`` saying what changed (the parameter named, if ``model`` names them)
    and what to do."""
    at = None if now is None else replaced_at(now, traced)
    if now is not None and at is not None:
        name = name_of(model, at) if len(now) == len(traced) else ""
        raise ReplacedParameterError(
            f"{what_changed(now, traced, at, name)}: a parameter was replaced after compile(), and the "
            "compiled step would go on with the old one. Compile again (micrograd.compile(...)), or "
            "change a parameter by setting its .data (p.data = 5.0, as load_state_dict does), which "
            "the step reads at every call"
        )


class Watch:
    """What a model held at trace time on the way to its parameters: the lists and tuples, and the
    attributes (``__dict__``) of the objects with a ``parameters()`` method; ``held()`` says
    cheaply whether it holds the same objects still."""

    def __init__(self, model: Any, params: Sequence[Value]) -> None:
        self.boxes: list[Any] = []  # lists, tuples and attribute dicts to read again
        found: list[Value] = []
        self._note(model, found, set())
        # What each box held: a shallow copy of each, of its own type (a tuple, which cannot
        # change, is its own).  held() compares them in one pass of C code, by ``==``, which is
        # identity for a Value and a module (object's __eq__); a list or tuple put in place of
        # one is equal only if it holds the same (==, all the way down), so the model holds the
        # same Values whichever list it reads.
        self.items = list(map(copy.copy, self.boxes))
        # (found in another order or not all: parameters() is not this walk, so it is called each time)
        self.exact = len(found) == len(params) and all(map(operator.is_, found, params))

    def _note(self, obj: Any, found: list[Value], seen: set[int]) -> bool:
        """Note ``obj``'s way to parameters (added to ``found`` in order); whether it has one."""
        if isinstance(obj, Value):
            found.append(obj)
            return True
        if id(obj) in seen:
            return False
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            items: Any = obj
        else:
            attrs = getattr(obj, "__dict__", None)
            if not isinstance(attrs, dict) or not callable(getattr(obj, "parameters", None)):
                return False
            items = attrs  # (every attribute: one added, removed or replaced is seen)
            obj = {k: v for k, v in attrs.items() if not k.startswith("_")}.values()
        leads = [self._note(item, found, seen) for item in list(obj)]
        if any(leads):
            self.boxes.append(items)
        return any(leads)

    def held(self) -> bool:
        """Whether every box holds what it held (an attribute added counts as changed)."""
        try:
            # (the boxes themselves against their copies: ``==`` stops at the first item that
            # differs; on microgpt, 4,462 items in 237 boxes, 0.006 ms, where copying each box
            # into a list first took 0.04 ms, and ``all(map(operator.is_, ...))`` 0.2 ms)
            return self.boxes == self.items
        except Exception:  # (an attribute replaced by one whose == raises, an array: changed)
            return False


def watcher(model: HasParameters, params: Sequence[Value]) -> Callable[[], Sequence[Value] | None]:
    """A check for each call: None while ``model`` holds the traced ``params``, else its
    parameters now (``model.parameters()``, built only when something changed)."""
    watch = Watch(model, params)

    def changed() -> Sequence[Value] | None:
        nonlocal watch
        if watch.exact and watch.held():
            return None
        now = model.parameters()
        if replaced_at(now, params) is None:
            watch = Watch(model, params)  # (changed, but to the same Values: noted again)
            return None
        return now

    return changed
