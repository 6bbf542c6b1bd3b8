"""Per-thread switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``detect_anomaly``,
and the hook that hears of Values read as numbers (for ``micrograd.compile``'s tracer).

Each switch is per thread, as in PyTorch: a ``no_grad`` block in one thread does
not stop another thread from building its graph.  Ops read one module-level
set, so the common case (no thread in a special mode) costs a single truth test.
"""

from __future__ import annotations

import functools
import math
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])

# Idents of the threads in which graph building is switched off.
no_grad_threads: set[int] = set()
# Idents of the threads inside detect_anomaly().
anomaly_threads: set[int] = set()
# Per thread inside micrograd.scopes.record_scopes(): its open scopes, innermost last.
scope_stacks: dict[int, list[Any]] = {}
# All three together: the threads whose ops take the slow path. Ops test this one set, so the
# common case (no thread in no_grad, detect_anomaly or record_scopes) costs a single truth test.
watched_threads: set[int] = set()
# Per thread: the states to restore when the innermost context exits.
_saved = threading.local()


def _rewatch(ident: int) -> None:
    if ident in no_grad_threads or ident in anomaly_threads or ident in scope_stacks:
        watched_threads.add(ident)
    else:
        watched_threads.discard(ident)


def set_scope_stack(stack: list[Any] | None) -> None:
    """Start (a list: the open scopes) or stop (None) recording scopes in this thread."""
    ident = threading.get_ident()
    if stack is None:
        scope_stacks.pop(ident, None)
    else:
        scope_stacks[ident] = stack
    _rewatch(ident)


def current_thread_scopes() -> list[Any] | None:
    """This thread's open scopes, innermost last (None: not recording scopes)."""
    return scope_stacks.get(threading.get_ident())


def is_grad_enabled() -> bool:
    """True when ops in this thread record the graph (the default)."""
    return threading.get_ident() not in no_grad_threads


def _set_enabled(enabled: bool) -> None:
    ident = threading.get_ident()
    if enabled:
        no_grad_threads.discard(ident)
    else:
        no_grad_threads.add(ident)
    _rewatch(ident)


class _GradMode:
    """A context manager and decorator that sets grad mode for its block."""

    _enabled: bool

    def __enter__(self) -> None:
        stack = getattr(_saved, "stack", None)
        if stack is None:
            stack = _saved.stack = []
        stack.append(is_grad_enabled())
        _set_enabled(self._enabled)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _set_enabled(_saved.stack.pop())  # restored on exceptions too

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:  # the saved states live per thread, so one instance serves all calls
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Ops inside the block return leaves: no graph is built (for inference).

    Nestable, exception-safe and per thread; also usable as a decorator.

    >>> from micrograd import Value, no_grad
    >>> x = Value(2.0)
    >>> with no_grad():
    ...     y = x * x
    >>> y._prev
    ()

    As a decorator it may be written with or without parentheses:

    >>> @no_grad
    ... def predict(v):
    ...     return v * v
    >>> predict(x)._prev
    ()
    """

    _enabled = False

    @overload
    def __new__(cls) -> no_grad: ...

    @overload
    def __new__(cls, func: F) -> F: ...  # type: ignore[misc]  # ``@no_grad``: the wrapped function

    def __new__(cls, func: F | None = None) -> Any:
        self = super().__new__(cls)
        if func is None:
            return self
        if isinstance(func, type) or not callable(func):
            raise TypeError(
                "no_grad() takes no arguments: write `with no_grad():`, or decorate a function "
                f"with @no_grad or @no_grad(); got {type(func).__name__}: {func!r}"
            )
        return self(func)  # ``@no_grad`` without parentheses: wrap the function at once


class enable_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Switch graph building back on inside a ``no_grad`` block."""

    _enabled = True


class set_grad_enabled(_GradMode):  # noqa: N801 - PyTorch's name
    """Switch graph building by a flag, as ``torch.set_grad_enabled``: called as a function it
    switches at once (``set_grad_enabled(False)`` is inference mode until ``set_grad_enabled(True)``);
    as ``with set_grad_enabled(False): ...`` or a decorator, for a block, restored after it.

    >>> from micrograd import Value, is_grad_enabled
    >>> _ = set_grad_enabled(False); is_grad_enabled()
    False
    >>> _ = set_grad_enabled(True); is_grad_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects a bool, got {type(mode).__name__}: {mode!r}")
        self._enabled = mode
        self._prev = is_grad_enabled()
        _set_enabled(mode)  # as PyTorch: the call itself switches, so that it works without `with`

    def __enter__(self) -> None:
        pass  # (switched already, by the call)

    def __exit__(self, *exc: object) -> None:
        _set_enabled(self._prev)

    def __call__(self, func: F) -> F:
        _set_enabled(self._prev)  # a decorator: the call made to build it must not switch anything
        mode = self._enabled

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Find where a nan or inf comes from (``torch.autograd.detect_anomaly``).

    Inside the block each op remembers where it was called (the file and line in
    your code, not the engine's), and the backward pass checks every gradient it
    produces: the first nan or inf raises ``AnomalyError`` naming the op whose
    backward produced it, its operands, where it was made, and, when the forward
    pass had already produced a nan, the first op that did (with its operands and
    where it was made).  Per thread, nestable, a context manager or a decorator;
    off by default, and costless when off.

    >>> import micrograd
    >>> from micrograd import Value
    >>> x = Value(0.0)
    >>> with micrograd.detect_anomaly():
    ...     y = (x.log() * 0).exp()       # log(0) = -inf; -inf * 0 = nan
    ...     y.backward()                  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    micrograd.AnomalyError: the forward pass made nan at op '*' (...) from operands (-inf, 0.0)...
    """

    def __enter__(self) -> None:
        stack = getattr(_saved, "anomaly", None)
        if stack is None:
            stack = _saved.anomaly = []
        ident = threading.get_ident()
        stack.append(ident in anomaly_threads)
        anomaly_threads.add(ident)
        _rewatch(ident)

    def __exit__(self, *exc: object) -> None:
        ident = threading.get_ident()
        if not _saved.anomaly.pop():
            anomaly_threads.discard(ident)
        _rewatch(ident)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def is_anomaly_enabled() -> bool:
    """True inside ``detect_anomaly()`` in this thread."""
    return threading.get_ident() in anomaly_threads


# ---- hearing of Values read as Python numbers ------------------------------------
# ``micrograd.compile`` traces a function once and replays the graph: a Value the
# function turned into a bool or a float (``if v > 0``, ``float(v)``) fixes that
# outcome in the replay, so the tracer wants to hear of it.  Re-running a
# Function's forward on Values (for ``create_graph``) wants to hear of ``float(v)``,
# which would cut the graph.  Hooks are per thread, innermost last; Values call
# ``_data_read`` only while some thread has one, so the common case costs one
# truth test.

# thread ident -> hooks, innermost last; each gets (what, kind) with kind "compare" or "convert"
data_read_hooks: dict[int, list[Callable[[str, str], None]]] = {}


def data_read(what: str, kind: str) -> None:
    hooks = data_read_hooks.get(threading.get_ident())
    if hooks:
        hooks[-1](what, kind)


class hear_data_reads:  # noqa: N801 - used as a context manager, like no_grad
    """Within the block, this thread's Values report being read as numbers to ``hook``."""

    def __init__(self, hook: Callable[[str, str], None]) -> None:
        self._hook = hook

    def __enter__(self) -> None:
        data_read_hooks.setdefault(threading.get_ident(), []).append(self._hook)

    def __exit__(self, *exc: object) -> None:
        ident = threading.get_ident()
        hooks = data_read_hooks[ident]
        hooks.pop()
        if not hooks:
            del data_read_hooks[ident]


# ---- what detect_anomaly() reports -------------------------------------------------------
# The engine records where each op was called inside detect_anomaly() (``where_made``) and,
# in the backward pass, hands every gradient an op's rule produced to ``check_finite``.


class AnomalyError(RuntimeError):
    """``detect_anomaly()`` found a nan or inf; the message says where it was made, and so do
    the attributes: ``op``, ``operands`` and ``where`` (file:line) of the op whose backward
    made it, and ``first_nan_op``, ``first_nan_operands``, ``first_nan_where`` of the first op
    that made a nan in the forward pass (None when the forward pass made none)."""

    __module__ = "micrograd"  # a traceback names it where users import it from: micrograd.AnomalyError

    def __init__(self, message: str, node: Any, first_nan: Any, where: Callable[[Any], str]) -> None:
        super().__init__(message)
        self.op, self.operands, self.where = node._op, tuple(p.data for p in node._prev), where(node)
        self.first_nan_op: str | None = None
        self.first_nan_operands: tuple[float, ...] | None = None
        self.first_nan_where: str | None = None
        if first_nan is not None:
            self.first_nan_op = first_nan._op
            self.first_nan_operands = tuple(p.data for p in first_nan._prev)
            self.first_nan_where = where(first_nan)


def where_made(engine_dirs: tuple[str, ...]) -> str:
    """``file:line`` of the first frame outside ``engine_dirs``: the line of your code that made a node."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(engine_dirs):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _number(x: Any) -> float:
    return x.data if hasattr(x, "_prev") else x  # type: ignore[no-any-return]


def check_finite(
    node: Any, g: Any, received: Sequence[Any] | None, graph: Iterable[Any], where: Callable[[Any], str]
) -> None:
    """Raise ``AnomalyError`` if ``node``'s backward sent a nan or inf to an operand; ``graph``
    is the graph's nodes in forward order (to find the first nan), ``where(node)`` the line
    that made a node."""
    for k, c in enumerate(received or ()):
        if c is None or math.isfinite(_number(c)):
            continue
        value = _number(c)
        operands = tuple(p.data for p in node._prev)
        message = (
            f"the backward pass made {value} at op {node._op!r} ({where(node)}): given the upstream "
            f"gradient {_number(g)}, its backward sent {value} to operand {k}; "
            f"its operands are {operands} and its result {node.data}"
        )
        first_nan = None
        for v in graph:  # the first op that made a nan from numbers that were not
            if v._prev and math.isnan(v.data) and not any(math.isnan(p.data) for p in v._prev):
                first_nan = v
                ops = tuple(p.data for p in v._prev)
                message = (
                    f"the forward pass made nan at op {v._op!r} ({where(v)}) from operands {ops}; {message}"
                )
                break
        raise AnomalyError(message, node, first_nan, where)
