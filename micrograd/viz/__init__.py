"""The pictures, as a pipeline that reads one way down; each module imports only those before it:

1. ``graph_model``: the Values of a graph in forward order, their ids, names and roles, and
   ``backward()``'s steps, observed in the engine's own loop (``BackwardTrace``);
2. ``boxes``: a ``micrograd.scopes`` recording turned into nested boxes of that model, with the
   backward runs through each;
3. ``box_views``: what each picture shows, before layout: items (records, ops, closed boxes) and
   edges, for the whole graph or inside one box;
4. ``layout``: the built-in layered layout of those items, written as Graphviz's SVG;
5. ``dot``: Graphviz's picture of a model (``draw_dot``, ``render``, ``explain``, and the
   explorer's Graphviz layout, run with a time limit and stopped with everything it started);
   ``forward_mode``: ``explain_jvp``, forward mode's steps (``micrograd.func.forward_steps``) in
   ``explain``'s words;
6. ``mistakes``: break-it mode, the classic bugs of a backward pass (``=`` for ``+=``, no
   topological order, no zeroing, tanh's rule) simulated on a graph model beside the right one
   (``wrong_gradients``); ``mistake_examples``: for a mistake that changes nothing on the
   learner's graph, a small graph of its own where it does (``EXAMPLES``);
7. ``page``: the HTML pages from ``assets/``: the explorer's data, as JSON, around a laid-out picture;
8. ``explorer``: ``explore``, a short entry that calls them in that order: graph model → (boxes)
   → layout (built-in, or Graphviz) → break-it data (mistakes) → page;
9. ``recorder``: ``TrainingRecorder``, a training run recorded step by step and written as the
   replay page (any model with ``nn.Module``'s parameter API, read by name: viz never imports nn).

``draw_dot``, ``render`` and ``explain`` (``dot``), ``explain_jvp`` (``forward_mode``),
``explore`` (``explorer``) and ``TrainingRecorder`` (``recorder``) are the entries.

May import: ``micrograd`` (its public names, as no_grad), ``engine`` (to build graphs and read
them, through Value.op and Value.children), ``func.reverse``, ``func.transforms``, ``scopes``,
``files`` and ``graphviz`` (loaded when a picture needs it); never _core (the graph model is viz's
reader of graphs), compile, exercises or nn.

>>> from micrograd import Value
>>> from micrograd.viz import explain
>>> x = Value(3.0, label="x")
>>> explain(x * x)  # doctest: +ELLIPSIS
Backpropagation from x*x = 9.0000 through 2 Values, in backward order.
...
    x  data 3.0000  d(x*x)/dx = 6.0000
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
from .forward_mode import explain_jvp
from .recorder import TrainingRecorder

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
    "TrainingRecorder",
    "as_values",
    "backward_steps",
    "d_of",
    "draw_dot",
    "explain",
    "explain_jvp",
    "explore",
    "expression",
    "fmt",
    "names_of",
    "render",
    "role",
]
