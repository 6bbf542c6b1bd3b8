"""The functional API of backpropagation: ``grad`` (as ``torch.autograd.grad``) and ``topological_order``.

Both use the engine's own graph walk and chain-rule loop (``micrograd/engine.py``),
the ones ``Value.backward()`` runs: ``grad`` returns the gradients instead of
adding them into ``.grad``, and with ``create_graph=True`` the loop runs the
ops' backward rules on Values, so the gradients are nodes of a graph that can
be differentiated again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import engine
from .._core import bookkeeping
from .._core.coerce import to_float
from ..engine import Number, Value, backpropagate, leaf

Values = Value | Sequence[Value]


def topological_order(roots: Values) -> list[Value]:
    """Every node reachable from ``roots``, each after all of its operands
    (leaves first, roots last): the order of the forward computation.

    >>> a = Value(1.0); b = a * 2; c = b + a
    >>> [v.data for v in topological_order(c)]
    [1.0, 2.0, 2.0, 3.0]
    """
    return list(engine.topological_order(as_tuple(roots, "roots")))


def backward(root: Value, gradient: Number = 1.0) -> None:
    """``root.backward(gradient)``: add d(root)/d(node) * gradient into every node's ``.grad``.

    >>> x = Value(2.0); y = x * x * x
    >>> backward(y); x.grad
    12.0
    """
    if not isinstance(root, Value):
        raise TypeError(f"backward() needs a Value, got {type(root).__name__}: {root!r}")
    root.backward(gradient)


def grad(
    outputs: Values,
    inputs: Values,
    grad_outputs: Sequence[Any] | Number | Value | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, as ``torch.autograd.grad``.

    Returns a tuple with one gradient per input: floats, or with
    ``create_graph=True`` Values that form a graph of their own, so that they
    can be differentiated again (second derivatives, Hessian-vector products,
    gradient penalties).  ``.grad`` attributes are left untouched.
    ``grad_outputs`` weights each output (default 1.0): the result is then the
    vector-Jacobian product.  An input that the outputs do not depend on is an
    error, unless ``allow_unused=True``, which gives None for it.

    >>> x = Value(3.0)
    >>> (g,) = grad(x**3, [x], create_graph=True)   # 3 x**2 = 27, as a Value
    >>> grad(g, [x])                                # 6 x = 18
    (18.0,)
    """
    outs = as_tuple(outputs, "outputs")
    ins = as_tuple(inputs, "inputs")
    if grad_outputs is None:
        weights: tuple[Any, ...] = (1.0,) * len(outs)
    elif isinstance(grad_outputs, (Value, int, float)):
        weights = (grad_outputs,)
    else:
        weights = tuple(grad_outputs)
    if len(weights) != len(outs):
        raise ValueError(f"grad_outputs has {len(weights)} entries but there are {len(outs)} outputs")
    grads: dict[Value, Any] = {}
    for out, w in zip(outs, weights):
        seed: Any
        if not create_graph:
            seed = to_float(w.data if isinstance(w, Value) else w, "grad_outputs")
        else:
            seed = w if isinstance(w, Value) else leaf(to_float(w, "grad_outputs"))
        grads[out] = seed if out not in grads else grads[out] + seed
    grads = backpropagate(grads, create_graph=create_graph)  # every node behind the outputs
    result: list[Any] = []
    for i, x in enumerate(ins):
        if x not in grads:
            if not allow_unused:
                raise ValueError(
                    f"input {i} ({x!r}) was not used to compute the outputs; "
                    "pass allow_unused=True to get None for it"
                )
            result.append(None)
            continue
        g = grads[x]
        if g is None:
            g = 0.0  # reachable, but every path to it carried no gradient
        if create_graph and not isinstance(g, Value):
            g = leaf(g)  # a constant gradient: a leaf of the new graph
        result.append(g)
    return tuple(result)


def as_tuple(values: Values, what: str) -> tuple[Value, ...]:
    """``values`` (one Value or a sequence of them) as a non-empty tuple of Values, or a clear error."""
    items = (values,) if isinstance(values, Value) else tuple(values)
    if not items:
        raise ValueError(f"{what} is empty")
    for i, v in enumerate(items):
        if not isinstance(v, Value):
            raise TypeError(f"{what}[{i}] must be a Value, got {type(v).__name__}: {v!r}")
    return items


def add_passes_into_grad(nodes: Sequence[Value], grads: Any, reached: Any) -> None:
    """Add the gradients of several backward passes into ``nodes``' ``.grad`` at once, as
    ``backward()`` run pass after pass would leave them, zeros' signs included: pass ``k`` gives
    ``nodes[i]`` the gradient ``grads[k][i]`` where ``reached[k][i]`` (arrays, or lists of lists;
    needs numpy).  What a batch of compiled steps hands back, added as the eager loop adds it.

    >>> x, y = Value(1.0), Value(1.0)
    >>> add_passes_into_grad([x, y], [[2.0, 5.0], [3.0, 7.0]], [[True, False], [True, True]])
    >>> x.grad, y.grad
    (5.0, 7.0)
    """
    bookkeeping.add_rows_into_grad(nodes, grads, reached)


def sum_of_passes(grads: Any, reached: Any) -> Any:
    """What several backward passes leave in ``.grad``s that held no gradient yet, as a numpy
    array: ``add_passes_into_grad``'s sums, without nodes.

    >>> sum_of_passes([[2.0, -0.0], [3.0, -0.0]], [[True, True], [True, False]]).tolist()
    [5.0, -0.0]
    """
    import numpy as np

    grads = np.asarray(grads, dtype=np.float64)
    n = grads.shape[-1]
    total, _ = bookkeeping.accumulate_rows(np.zeros(n), np.zeros(n, dtype=bool), grads, reached)
    return total


__all__ = ["add_passes_into_grad", "as_tuple", "backward", "grad", "sum_of_passes", "topological_order"]
