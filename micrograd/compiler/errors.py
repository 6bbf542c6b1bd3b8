"""What ``micrograd.compile`` raises when a traced graph cannot be replayed on arrays."""

from __future__ import annotations

from typing import Any


class CompileError(TypeError):
    """The traced graph holds something that cannot be replayed on arrays (the message names it)."""


HOW_TO_FIX = (
    "write its forward and backward with operators and micrograd.math (micrograd.math.where(cond, a, b) "
    "instead of an `if` on data, micrograd.math.exp instead of math.exp), so that they run on numpy arrays"
)

_np: Any = None  # numpy, once a step needs it (importing micrograd does not import it)


def load_numpy() -> Any:
    """numpy, imported on first use, or an ImportError that says how to install it."""
    global _np
    if _np is None:
        try:
            import numpy
        except ImportError as e:
            raise ImportError("micrograd.compile needs numpy: pip install numpy") from e
        _np = numpy
    return _np
