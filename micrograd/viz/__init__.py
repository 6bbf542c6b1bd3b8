"""The pictures, as a pipeline that reads one way down:

graph model (``graph_model``: the Values in forward order, their names and roles, and
``backward()``'s steps, observed) → boxes (``boxes`` groups a ``micrograd.scopes`` recording,
``box_views`` draws inside each) → layout (``layout``: the built-in one; ``dot``: Graphviz's) →
page (``explorer`` fills ``page``'s templates in ``assets/``).

``draw_dot``, ``render`` and ``explain`` (``dot``) and ``explore`` (``explorer``) are the entries.
May import: ``engine`` (to read a graph), ``func.reverse``, ``scopes`` and ``files``; a module
here imports only those below it in the pipeline.  Graphviz loads when a picture needs it.

>>> from micrograd import Value
>>> from micrograd.viz import explain
>>> x = Value(3.0, label="x")
>>> explain(x * x)  # doctest: +ELLIPSIS
Backpropagation from #1 = 9.0000 through 2 Values, in backward order.
...
    x  data 3.0000  d(#1)/dx = 6.0000
"""

from .dot import (
    COLOURS,
    DEFAULT_MAX_NODES,
    INSTALL_HINT,
    BackwardStep,
    BackwardTrace,
    Contribution,
    GraphTooLargeError,
    GraphvizNotFoundError,
    GraphvizTimeoutError,
    as_values,
    backward_steps,
    d_of,
    draw_dot,
    explain,
    expression,
    fmt,
    names_of,
    render,
    role,
)
from .explorer import explore

__all__ = [
    "COLOURS",
    "DEFAULT_MAX_NODES",
    "INSTALL_HINT",
    "BackwardStep",
    "BackwardTrace",
    "Contribution",
    "GraphTooLargeError",
    "GraphvizNotFoundError",
    "GraphvizTimeoutError",
    "as_values",
    "backward_steps",
    "d_of",
    "draw_dot",
    "explain",
    "explore",
    "expression",
    "fmt",
    "names_of",
    "render",
    "role",
]
