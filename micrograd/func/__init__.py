"""Derivatives as functions: ``grad(outputs, inputs)`` (``torch.autograd.grad``), ``gradcheck``,
and the function transforms (``torch.func``'s ``grad(f)``, ``jvp``, ``jacobian``, ``hessian``).

* ``reverse``: ``grad``, ``backward`` and ``topological_order`` over Values, reverse mode;
* ``gradcheck``: ``gradcheck`` and ``gradgradcheck``, the engine's rules against central differences;
* ``transforms``: ``grad(f)``, ``value_and_grad``, ``vjp``, ``jacrev``, ``hessian`` (reverse mode)
  and ``jvp``, ``jacfwd``, ``hvp`` (forward mode, from the ops' one ``backward``);
* ``reads``: a traced input's ``.data`` read inside a transform (or ``compile``), and whether the
  number reached the result as a constant (``constants_read``: the reads warned of).

``micrograd.func.grad`` is the transform; ``micrograd.grad`` is ``reverse.grad``; forward mode's
steps as data are ``forward_steps`` (the pictures print them: ``micrograd.viz.explain_jvp``).

May import: ``engine``, ``_core``, ``ops``, ``math`` and ``numpy`` (for arrays in and out); never the
pictures (viz), compile, exercises or nn.

>>> from micrograd import func
>>> func.grad(lambda x: x * x * x)(2.0)
12.0
"""

from .transforms import *  # noqa: F403 - micrograd.func's names are the transforms'
from .transforms import __all__ as __all__
