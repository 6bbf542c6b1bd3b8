"""Hooks on gradients: what ``Value.register_hook`` returns, and running a node's hooks.

A hook is called with a node's gradient once it is complete in ``backward()`` or
``grad()``; a number it returns replaces the gradient (PyTorch's
``Tensor.register_hook``).  While no hook is registered anywhere (``REGISTERED``),
the backward pass does not look for them.

>>> from micrograd import Value
>>> x = Value(2.0)
>>> with x.register_hook(lambda g: g * 10):
...     (x * x).backward()
>>> x.grad
40.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .coerce import is_value, to_float

Hook = Callable[[Any], Any]
REGISTERED = [0]  # how many hooks are registered, in all: while any are, the backward pass calls them


class RemovableHandle:
    """What ``Value.register_hook`` returns: ``remove()`` takes the hook off (also on leaving a ``with``)."""

    def __init__(self, hooks: list[Hook], hook: Hook) -> None:
        hooks.append(hook)
        REGISTERED[0] += 1
        self.hooks: list[Hook] | None = hooks
        self.hook = hook

    def remove(self) -> None:
        hooks, self.hooks = self.hooks, None
        if hooks is not None:
            hooks.remove(self.hook)
            REGISTERED[0] -= 1

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def run(hooks: list[Hook], g: Any, create_graph: bool, as_leaf: Callable[[float], Any]) -> Any:
    """The gradient ``g`` after ``hooks``, in order; under ``create_graph`` a number a hook
    returns becomes a leaf (``as_leaf``) of the new graph."""
    for hook in list(hooks):
        result = hook(g)
        if result is None:
            continue
        if create_graph and is_value(result):
            g = result
        else:
            g = to_float(result, "a hook's replacement gradient")
            if create_graph:
                g = as_leaf(g)
    return g
