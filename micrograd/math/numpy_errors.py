"""numpy's floating-point warnings, kept silent where micrograd.math gives inf and nan as floats do.

On a float, ``micrograd.math.div(1.0, 0.0)`` is inf and ``log(-1.0)`` nan, without a word
(``floats.py``).  numpy warns of the same results (``RuntimeWarning: divide by zero``) unless
``numpy.errstate`` tells it not to, so each array function of ``micrograd.math`` enters one around
its numpy call: ``quiet()``.  Entering one costs about 3 µs (numpy 2.4 here), three times a division
of two arrays of a hundred numbers.  The compiled replay makes hundreds of such calls a step: it enters
one errstate for the whole replay instead, with ``silenced()``, and ``quiet()`` inside it enters nothing.

The flag that says so is a ``ContextVar``, as numpy's own error state is: a thread or an asyncio
task that did not enter ``silenced()`` keeps its own errstate per call.  Inside ``silenced()``, an
errstate that code enters itself (a user's rule with ``errstate(all="raise")``) is the one the array
functions run under.

>>> import numpy as np
>>> from micrograd import math as mm
>>> with silenced():
...     mm.div(np.array([1.0, 0.0]), np.array([0.0, 0.0]))
array([inf, nan])
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any

# Whether this context runs inside ``silenced()``: numpy's errors ignored already
_silenced: ContextVar[bool] = ContextVar("micrograd.math.numpy_errors.silenced", default=False)
_NOTHING = nullcontext()


@contextmanager
def silenced() -> Iterator[None]:
    """numpy's floating-point errors ignored in the block (``errstate(all="ignore")``), entered once:
    ``micrograd.math``'s array functions enter none of their own in it."""
    import numpy

    with numpy.errstate(all="ignore"):
        token = _silenced.set(True)
        try:
            yield
        finally:
            _silenced.reset(token)


def quiet() -> AbstractContextManager[Any]:
    """What an array function enters around its numpy call: ``errstate(all="ignore")``, or nothing
    inside ``silenced()``, where numpy's errors are ignored already."""
    if _silenced.get():
        return _NOTHING
    import numpy

    return numpy.errstate(all="ignore")
