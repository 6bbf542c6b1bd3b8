"""Math for writing ops: one function for a float, a Value or a numpy array alike.

* ``generic``: what an op's rules call (``exp``, ``log``, ``where``, ``div``, ... and the functions
  of a list, ``max`` to ``log_softmax``).  On a float it computes with PyTorch's float64
  semantics, on a Value it records the engine's op, on an array it computes element by element
  the very numbers of the float, so compiled replay equals the eager engine bit for bit.
* ``exact_ufuncs``: whether numpy's own ``exp``, ``log`` and ``power`` give the float functions'
  very bits on this machine (decided once, on first use); ``generic`` runs them on arrays where
  they do.
* ``numpy_errors``: numpy kept silent where a float gives inf or nan without a word: an
  ``errstate`` per array call (``quiet``), or one for a whole compiled replay (``silenced``).
* ``floats``: the float functions themselves, numbers only (``floats.exp(1000.0)`` is inf where
  Python's ``math.exp`` raises): what ``generic`` calls on a number.

``micrograd.math.exp`` and the rest are ``generic``'s.  May import: ``_core.coerce``, the
standard library and ``numpy`` (when an array arrives); the Value ops register themselves with
``generic`` when ``micrograd.ops`` loads, so nothing here imports the engine.

>>> from micrograd import Value
>>> from micrograd import math as mm
>>> mm.exp(0.0), mm.exp(Value(0.0)), mm.where(2.0 > 0, "yes", "no")
(1.0, Value(data=1.0, grad=0.0), 'yes')
"""

from .generic import *  # noqa: F403 - micrograd.math's functions are generic's
from .generic import __all__ as __all__
