"""Named scopes: which part of a program made each node, so that the explorer can draw a neuron,
a layer, an attention head or any ``Module`` call as one box that opens on click.

Inside ``record_scopes()``, every op's result is listed by the innermost open ``scope``: a
``with scope("name"):`` block in your code, or a call of an ``nn.Module`` (each call opens a
scope named after the module's attribute, ``layers.0``, ``neurons.3``).  Outside it,
``scope(...)`` does nothing and costs a truth test, and no Value carries anything more: the
recording keeps the lists, not the nodes.  ``explore(loss, scopes=recording)`` reads them.

The modules' scopes are this module's doing alone, for the recording's duration: while any
thread records, the ``__call__`` and ``forward`` of every ``nn.Module`` class are wrapped to open
one (``module_calls``), and put back as they were when the last recording ends.  ``nn`` itself
knows nothing of scopes, and ``micrograd`` never imports ``nn``: it finds ``nn.Module`` among the
loaded modules (if ``nn`` is not loaded, no module can be called).

>>> from micrograd import Value
>>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
>>> with record_scopes() as recording:
...     with scope("product", inputs=[a, b]):
...         c = a * b
...     L = c + 1
>>> [(s.name, len(s.nodes)) for s in recording.root.children]
[('product', 1)]
>>> len(recording.root.nodes)   # L, made outside every scope
1
"""

from __future__ import annotations

import functools
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ._core import grad_mode
from .engine import Value

__all__ = [
    "RECORDING",
    "Recording",
    "Scope",
    "ScopeWarning",
    "open_scopes",
    "record_scopes",
    "recording",
    "scope",
    "values_in",
]

# The threads recording scopes, each to its open scopes (innermost last): empty in the common
# case, so ``scope(...)`` tests its truth and goes on.
RECORDING = grad_mode.scope_stacks


class Scope:
    """A named part of the program: the nodes made while it was the innermost open scope
    (``nodes``), the scopes opened inside it (``children``), the Values it was given
    (``inputs``: drawn outside its box) and what opened it (``owner``: a Module, or None)."""

    __slots__ = ("name", "detail", "parent", "children", "nodes", "inputs", "owner", "opened_in")

    def __init__(
        self,
        name: str,
        parent: Scope | None,
        inputs: tuple[Value, ...] = (),
        owner: object = None,
        detail: str = "",
    ) -> None:
        self.name = name
        self.detail = detail  # a second line for its box, e.g. the module's repr
        self.parent = parent
        self.children: list[Scope] = []
        self.nodes: list[Value] = []
        self.inputs = inputs
        self.owner = owner
        # the generator (or coroutine) frame whose `with` opened it, while open: see _close_paused
        self.opened_in: types.FrameType | None = None

    def walk(self) -> Iterator[Scope]:
        """This scope and every scope inside it, depth first, each before its children."""
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        return f"<Scope {self.name!r}: {len(self.nodes)} nodes, {len(self.children)} scopes inside>"


class Recording:
    """What ``record_scopes()`` saw: ``root``, the unnamed scope of everything made outside
    every named one, and the named scopes under it, in the order they were opened."""

    def __init__(self) -> None:
        self.root = Scope("", None)

    def scopes(self) -> list[Scope]:
        """Every named scope, depth first."""
        return list(self.root.walk())[1:]

    def __repr__(self) -> str:
        return f"<Recording of {len(self.scopes())} scopes>"


class record_scopes:  # noqa: N801 - a context manager, named as no_grad is
    """Record which scope made each node in this thread, for ``explore(..., scopes=)``: the
    ``with scope(...)`` blocks and each call of an ``nn.Module`` (if ``nn`` is loaded when it starts).

    Not nestable: one recording per thread at a time (stop the first before starting another).
    """

    def __init__(self) -> None:
        self.recording = Recording()

    def __enter__(self) -> Recording:
        if recording():
            raise RuntimeError(
                "record_scopes() is already recording in this thread: leave the first "
                "`with record_scopes()` block before starting another"
            )
        module_calls.start()
        grad_mode.set_scope_stack([self.recording.root])
        return self.recording

    def __exit__(self, *exc: object) -> None:
        stack = grad_mode.current_thread_scopes()
        if stack is not None:
            _close_paused(stack)
        grad_mode.set_scope_stack(None)
        module_calls.stop()


class ScopeWarning(UserWarning):
    """A scope was left open where it claims ops that are not its own (see ``scope``)."""


# Code flags of a function whose frame can pause with a `with` block still open: a generator,
# a coroutine, an async generator.
_PAUSABLE = (
    0x20 | 0x80 | 0x100 | 0x200
)  # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR


def _close_paused(stack: list[Scope]) -> None:
    """Close every open scope whose generator is paused (its frame is not running in this thread),
    naming it in a ``ScopeWarning``.  While its generator is paused at a ``yield``, such a scope
    is still the innermost one open, so it claims the ops its caller makes between ``next()``
    calls (this runs when a scope opens or closes, and when the recording ends)."""
    if not any(s.opened_in is not None for s in stack):
        return  # the common case: no scope opened in a generator
    running: set[int] = set()
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        running.add(id(frame))
        frame = frame.f_back
    for s in [s for s in stack if s.opened_in is not None and id(s.opened_in) not in running]:
        paused = s.opened_in
        assert paused is not None
        where = f"{paused.f_code.co_name}() ({paused.f_code.co_filename}:{paused.f_lineno})"
        warnings.warn(
            f"scope {s.name!r}, opened in the generator {where}, was still open while it was paused at "
            "a yield, so ops made outside it until now were counted in its box; it is closed here. "
            "Close the `with scope(...)` block before each yield",
            ScopeWarning,
            stacklevel=3,
        )
        s.opened_in = None
        stack.remove(s)


def recording() -> bool:
    """True inside ``record_scopes()`` in this thread."""
    return grad_mode.current_thread_scopes() is not None


def open_scopes() -> list[Scope] | None:
    """This thread's open scopes, innermost last; None when it records none."""
    return grad_mode.current_thread_scopes()


class _Open:
    """The ``with`` block of one named scope while recording."""

    __slots__ = ("stack", "made")

    def __init__(self, stack: list[Scope], made: Scope) -> None:
        self.stack = stack
        self.made = made

    def __enter__(self) -> Scope:
        frame = sys._getframe(1)  # the frame whose `with` opens it
        if frame.f_code.co_flags & _PAUSABLE:
            self.made.opened_in = frame
        self.stack.append(self.made)
        return self.made

    def __exit__(self, *exc: object) -> None:
        self.made.opened_in = None  # (no frame kept alive by a recording)
        if self.stack and self.stack[-1] is self.made:
            self.stack.pop()
        _close_paused(self.stack)


class _Nothing:
    """``scope(...)`` when nothing is recorded: a block that does nothing."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NOTHING = _Nothing()


def scope(name: str, inputs: Iterable[Any] = (), owner: object = None, detail: str = "") -> Any:
    """A ``with`` block whose nodes the explorer draws as one box called ``name`` (inside
    ``record_scopes()``; elsewhere the block runs as it is).  ``inputs``: the Values the block
    is given (lists or tuples of them too, two levels deep), drawn outside the box, with an arrow
    in; anything else (a dict, a number) is refused.  In a generator, close the block before
    each ``yield``: a scope left open at a ``yield`` is closed, with a ``ScopeWarning``, when
    the recording next sees a scope open or close, or ends.

    >>> from micrograd import Value
    >>> x = Value(3.0)
    >>> with record_scopes() as rec:
    ...     with scope("square", inputs=[x]):
    ...         y = x * x
    >>> rec.scopes()[0].nodes == [y]
    True
    """
    stack = grad_mode.current_thread_scopes() if grad_mode.scope_stacks else None
    if stack is None:
        return _NOTHING
    if not isinstance(name, str):
        raise TypeError(f"scope: name must be a str, got {type(name).__name__}: {name!r}")
    _close_paused(stack)
    parent = stack[-1]
    made = Scope(name, parent, _given(inputs), owner, detail)
    parent.children.append(made)
    return _Open(stack, made)


def _given(inputs: object) -> tuple[Value, ...]:
    """``scope``'s ``inputs`` as a tuple of Values, refusing anything else with what to pass."""
    if isinstance(inputs, Value):
        return (inputs,)
    if not isinstance(inputs, (list, tuple)):
        hint = " (iterating a dict gives its keys: pass list(d.values()))" if isinstance(inputs, dict) else ""
        raise TypeError(
            f"scope: inputs must be a Value or a list or tuple of Values, got {type(inputs).__name__}{hint}"
        )
    found = values_in(inputs)
    if len(found) != _count(inputs):
        bad = next(_not_values(inputs, "inputs"))
        raise TypeError(
            f"scope: {bad}; inputs are the Values the block is given (lists or tuples of them, two levels "
            "deep): leave other things out"
        )
    return found


def _count(items: list[Any] | tuple[Any, ...], depth: int = 2) -> int:
    return sum(
        _count(item, depth - 1) if depth > 1 and isinstance(item, (list, tuple)) else 1 for item in items
    )


def _not_values(items: list[Any] | tuple[Any, ...], where: str, depth: int = 2) -> Iterator[str]:
    """What in ``items`` is not a Value, as ``inputs[1][0] is a float: 2.0``."""
    for i, item in enumerate(items):
        if depth > 1 and isinstance(item, (list, tuple)):
            yield from _not_values(item, f"{where}[{i}]", depth - 1)
        elif not isinstance(item, Value):
            yield f"{where}[{i}] is a {type(item).__name__}, not a Value: {item!r:.60}"


def values_in(items: Iterable[Any], depth: int = 2) -> tuple[Value, ...]:
    """The Values in ``items``, looking ``depth`` levels into lists and tuples (a vector, a batch)."""
    found: list[Value] = []
    for item in items:
        if isinstance(item, Value):
            found.append(item)
        elif depth > 1 and isinstance(item, (list, tuple)):
            found.extend(values_in(item, depth - 1))
    return tuple(found)


class ModuleCalls:
    """The scopes of ``nn.Module`` calls, while any thread records: ``start`` (each
    ``record_scopes()`` entered) wraps the ``__call__`` and ``forward`` that each ``nn.Module``
    class defines (and those of a class defined meanwhile, through a temporary
    ``__init_subclass__``), ``stop`` (each one left) puts everything back once no recording is
    left.  A wrapped call in a recording thread opens a scope named after the module's attribute
    in the module that called it (``layers.0``, else its class's name); elsewhere it calls the
    method as it is."""

    def __init__(self, module_class: str = "nn.module.Module") -> None:
        self.module_class = module_class  # found among the loaded modules, never imported
        self.lock = threading.Lock()
        self.recordings = 0
        self.wrapped: list[tuple[type, str, Callable[..., Any], Callable[..., Any]]] = []
        self.hooked: type | None = None  # the Module class given the temporary __init_subclass__

    def base(self) -> type | None:
        """``nn.Module``, if ``nn`` is loaded."""
        module, _, name = self.module_class.rpartition(".")
        found = getattr(sys.modules.get(module), name, None)
        return found if isinstance(found, type) else None

    def start(self) -> None:
        with self.lock:
            self.recordings += 1
            base = self.base()
            if self.recordings > 1 or base is None:
                return  # (already wrapped, or no nn loaded: no module to call)
            for cls in _with_subclasses(base):
                self.wrap(cls, base)
            if "__init_subclass__" in vars(base):
                return  # (a Module with a hook of its own: classes defined while recording get no box)
            wrap = self.wrap
            module: type = base

            def init_subclass(cls: type, /, **kwargs: Any) -> None:
                super(module, cls).__init_subclass__(**kwargs)  # type: ignore[arg-type]
                wrap(cls, module)

            base.__init_subclass__ = classmethod(init_subclass)  # type: ignore[assignment]
            self.hooked = base

    def wrap(self, cls: type, base: type) -> None:
        for name in ("__call__", "forward"):
            method = cls.__dict__.get(name)
            if isinstance(method, types.FunctionType):
                wrapper = _opening_scopes(method, base)
                setattr(cls, name, wrapper)
                self.wrapped.append((cls, name, method, wrapper))

    def stop(self) -> None:
        with self.lock:
            self.recordings -= 1
            if self.recordings:
                return
            if self.hooked is not None:
                del self.hooked.__init_subclass__
                self.hooked = None
            while self.wrapped:
                cls, name, method, wrapper = self.wrapped.pop()
                if cls.__dict__.get(name) is wrapper:  # (unless the class was given another since)
                    setattr(cls, name, method)


module_calls = ModuleCalls()


def _with_subclasses(base: type) -> list[type]:
    """``base`` and every class below it, each once."""
    found: list[type] = [base]
    for cls in found:  # (grows as it goes: a breadth-first walk)
        below: list[type] = cls.__subclasses__()
        found += [sub for sub in below if sub not in found]
    return found


def _opening_scopes(call: Callable[..., Any], base: type) -> Callable[..., Any]:
    """``call`` (a module's ``__call__`` or ``forward``), opening the module's scope when its
    thread records scopes and the module is not already the innermost scope's owner (a
    ``forward`` called by the module's own ``__call__``, or a ``super()`` call: one scope)."""

    @functools.wraps(call)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        stack = grad_mode.current_thread_scopes()
        if stack is None or stack[-1].owner is self:
            return call(self, *args, **kwargs)
        caller = next((s.owner for s in reversed(stack) if isinstance(s.owner, base)), None)
        shown = repr(self) if _has_own_repr(type(self)) else type(self).__name__
        with scope(_attribute_name(self, caller), values_in(args), self, shown):
            return call(self, *args, **kwargs)

    return method


def _has_own_repr(cls: type) -> bool:
    """Whether ``cls`` says what it is (a repr of its own, as ``MLP(2, [16, 1], ...)``)."""
    return any("__repr__" in vars(c) for c in cls.__mro__ if c is not object)


def _attribute_name(module: object, caller: object) -> str:
    """What the explorer calls a call of ``module``: its attribute in the module that called it
    (``layers.0``), else its class's name."""
    if caller is not None:
        for attr, value in vars(caller).items():
            if value is module:
                return attr
            if isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if item is module:
                        return f"{attr}.{i}"
    return type(module).__name__
