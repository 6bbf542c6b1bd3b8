"""One model of a graph for every picture of it: ``explain``, ``draw_dot``/``render``, ``explore``
and the built-in layout (``micrograd.viz.layout``) all read a ``GraphModel``.

A ``GraphModel`` holds the Values of a graph in forward (topological) order, each
with its id (``n<i>``, its position), its display name (its label, or ``#i``) and its
role (output, parameter, named leaf, constant, intermediate: the colour it is drawn
in).  ``backward()`` walks backpropagation through it once, with the ops' own rules
and the engine's own loop (``micrograd.engine.backpropagate``, observed step by
step), into a ``BackwardTrace``: the upstream gradient of every op and what each of
its operands receives, the numbers ``explain`` prints and the explorer shows.

>>> from micrograd import Value
>>> a = Value(2.0, label="a"); L = a * a + 1; L.label = "L"
>>> model = graph_model(L)
>>> [(model.names[v], model.roles[v]) for v in model.order]
[('a', 'named leaf'), ('#1', 'intermediate'), ('#2', 'constant'), ('L', 'output')]
>>> [(model.names[s.node], s.upstream) for s in model.backward().steps]
[('L', 1.0), ('#1', 1.0)]
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine import Value, backpropagate, vjp
from ..func.reverse import topological_order
from ..scopes import Recording
from .chains import Chain, chain_of, chain_steps, expandable

Roots = Value | Sequence[Value]

#: Default limit on the number of Values ``draw_dot``/``render``/``explain`` accept:
#: beyond a few hundred, Graphviz lays out slowly and the picture is unreadable.
DEFAULT_MAX_NODES = 300


COLOURS = {
    "output": "#b2f2bb",
    "parameter": "#ffc078",
    "named leaf": "#a5d8ff",
    "constant": "#dee2e6",
    "intermediate": "#ffffff",
}


class GraphTooLargeError(ValueError):
    """The graph has more Values than ``max_nodes`` allows (the message says how many, and what to do)."""


#: What a GraphTooLargeError advises for a picture (``{n}``: the graph's size).
PICTURE_ADVICE = (
    "a graph this large lays out slowly and is unreadable as a picture. "
    "Draw the graph of a single sample (e.g. the loss of one input instead of the whole batch), "
    "use format='svg' to zoom in, or raise the limit with max_nodes={n} (None: no limit)."
)


def graph_order(roots: Roots, max_nodes: int | None, what: str, advice: str = PICTURE_ADVICE) -> list[Value]:
    """The Values of the graph in forward order, after checking the roots and the size limit
    (``advice``: what the ``GraphTooLargeError`` suggests, ``{n}`` standing for the size)."""
    if max_nodes is not None and (
        isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1
    ):
        raise ValueError(f"{what}: max_nodes must be a positive int or None, got {max_nodes!r}")
    if not isinstance(roots, (Value, Sequence)):
        raise TypeError(
            f"{what} needs a Value or a sequence of Values, got {type(roots).__name__}: {roots!r}"
        )
    order = topological_order(roots)
    if max_nodes is not None and len(order) > max_nodes:
        raise GraphTooLargeError(
            f"{what}: the graph has {len(order)} Values, more than max_nodes={max_nodes}; "
            + advice.format(n=len(order))
        )
    return order


def fmt(x: float) -> str:
    """4 decimals, as micrograd shows them; scientific notation where that would hide the value."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0 or 1e-3 <= abs(x) < 1e6:
        return f"{x:.4f}"
    return f"{x:.4e}"


#: The longest expression a Value is named by (``x1*w1 + x2*w2``); a longer one is ``#i``.
MAX_EXPRESSION_NAME = 24
CONSTANT = "(constant)"  # Value.op of a number the engine turned into a leaf (x * 2's 2)

# How tightly each op binds, for an expression name's parentheses (a name: ATOM).
_BINDS = {"+": 1, "-": 1, "*": 2, "/": 2}
ATOM = 9
_PLAIN = re.compile(r"[\w.\[\]]+")  # a name that needs no parentheses: w1, layers.0.w.1, x[3]


def names_of(
    order: list[Value], given: Mapping[Value, str] | None = None, expressions: bool = False
) -> dict[Value, str]:
    """A display name per Value: its label, else its name in ``given`` (e.g. from
    ``model_names``), else ``#i`` (its position in the forward order).  With ``expressions``
    (what a learner reads: ``explore``, ``explain``, ``draw_dot``, ``render``) a number the
    engine lifted into a leaf (the 2 of ``x * 2``) is named by the number, and a Value whose
    operands all have names by the expression a learner would write (``x1*w1``,
    ``x1*w1 + x2*w2``, ``(a + b)*c``, ``tanh(n)``; a ``dot`` node as its sum of products,
    ``b + x1*w1 + x2*w2``), up to ``MAX_EXPRESSION_NAME`` characters
    (micrograd.sum's start of 0 adds nothing: the name leaves it out).  A label always wins: it
    is what the user wrote on that Value.

    >>> from micrograd import Value
    >>> x1, w1 = Value(2.0, label="x1"), Value(-3.0, label="w1")
    >>> x2, w2 = Value(0.0, label="x2"), Value(1.0, label="w2")
    >>> n = x1 * w1 + x2 * w2
    >>> names = names_of([x1, w1, x2, w2, n._prev[0], n._prev[1], n], expressions=True)
    >>> [names[v] for v in n._prev + (n,)]
    ['x1*w1', 'x2*w2', 'x1*w1 + x2*w2']
    >>> names_of([x1, w1, n._prev[0]])[n._prev[0]]
    '#2'
    """
    given = given or {}
    if not expressions:
        return {v: v.label or given.get(v) or f"#{i}" for i, v in enumerate(order)}
    names: dict[Value, str] = {}
    binds: dict[Value, int] = {}  # how tightly each expression name binds (ATOM: not an expression)
    for i, v in enumerate(order):
        name = v.label or given.get(v)
        if name:
            binds[v] = ATOM if _PLAIN.fullmatch(name) else 0
        elif not v.children and v.op == CONSTANT:
            name = f"{v.data:g}"
            binds[v] = ATOM if v.data >= 0 else 0
        else:
            found = _expression_name(v, names, binds)
            if found is not None and len(found[0]) <= MAX_EXPRESSION_NAME:
                name, binds[v] = found
            else:
                name, binds[v] = f"#{i}", ATOM
        names[v] = name
    return names


def _expression_name(v: Value, names: dict[Value, str], binds: dict[Value, int]) -> tuple[str, int] | None:
    """``v`` written with its operands' names and how tightly it binds, or None where an operand
    has no name a learner wrote (``#i``) or the graph gave none yet."""
    operands = list(v.children)
    if not operands or any(c not in names or names[c].startswith("#") for c in operands):
        return None
    op = v.op or "?"
    if op == "+" and len(operands) > 2 and operands[0].op == CONSTANT and operands[0].data == 0.0:
        operands = operands[1:]  # micrograd.sum's start: 0 + a + b is a + b

    def arg(c: Value, tighter_than: int) -> str:
        return names[c] if binds[c] > tighter_than else f"({names[c]})"

    if op == "dot" and len(operands) >= 3 and len(operands) % 2 == 1:  # weighted_sum: start, ws, xs
        n = len(operands) // 2
        start, pairs = operands[0], zip(operands[1 : n + 1], operands[n + 1 :])
        terms = [f"{arg(w, 1)}*{arg(x, 2)}" for w, x in pairs]
        if not (start.op == CONSTANT and start.data == 0.0):  # its start of 0 adds nothing
            terms.insert(0, arg(start, 0))
        return " + ".join(terms), 1
    if op in _BINDS and (len(operands) == 2 or op in ("+", "*")):
        k = _BINDS[op]
        glue = f" {op} " if k == 1 else op
        # the left operand may bind as loosely as the op (a - b - c); the others must bind tighter
        return glue.join([arg(operands[0], k - 1)] + [arg(c, k) for c in operands[1:]]), k
    if op.startswith("**") and len(operands) == 1:
        return f"{arg(operands[0], ATOM - 1)}{op}", 3
    if op == "neg" and len(operands) == 1:
        return f"-{arg(operands[0], ATOM - 1)}", 2
    return f"{op}({', '.join(names[c] for c in operands)})", ATOM


#: What ``model=`` accepts, as the error messages say it.
MODEL_HELP = (
    "an nn.Module (anything with named_parameters()), a dict of name -> Value, "
    "or (name, Value) pairs such as model.named_parameters()"
)


def model_names(model: object, what: str) -> dict[Value, str]:
    """Each Value of ``model`` with its name: ``model.named_parameters()`` for an ``nn.Module``
    (``layers.0.neurons.1.w.1``), or a dict / pairs of ``(name, Value)``.  A Value named twice
    keeps its first name, as ``named_parameters()`` lists shared weights first where defined.

    >>> from micrograd import Value
    >>> w = Value(0.5)
    >>> model_names({"w": w}, "explore") == {w: "w"}
    True
    """
    if model is None:
        return {}
    pairs: object = model
    if callable(getattr(model, "named_parameters", None)):
        pairs = getattr(model, "named_parameters")()  # noqa: B009 - duck-typed: any such object
    elif isinstance(model, Mapping):
        pairs = model.items()
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"{what}: model must be {MODEL_HELP}; got {type(model).__name__}: {model!r}")
    names: dict[Value, str] = {}
    for i, pair in enumerate(pairs):
        ok = isinstance(pair, tuple) and len(pair) == 2
        if not ok or not isinstance(pair[0], str) or not isinstance(pair[1], Value):
            raise TypeError(f"{what}: model's entry {i} must be a (name: str, Value) pair, got {pair!r}")
        names.setdefault(pair[1], pair[0])
    return names


def recorded_names(scopes: Recording | None) -> dict[Value, str]:
    """The names of the parameters of every ``nn.Module`` called at the top of a
    ``record_scopes()`` recording (a Module call knows its parameters): its scope's owner's
    ``named_parameters()``.  Modules called inside another are covered by the outer one's names."""
    names: dict[Value, str] = {}
    todo = list(scopes.root.children) if scopes is not None else []
    while todo:  # down to the outermost Module call of each branch (a `scope` block may hold it)
        top = todo.pop(0)
        named = getattr(top.owner, "named_parameters", None)
        if not callable(named):
            todo += top.children
            continue
        for pair in named():
            if isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], Value):
                names.setdefault(pair[1], str(pair[0]))
    return names


def role(v: Value, outputs: set[Value], params: set[Value]) -> str:
    """What ``v`` is in the picture: an output, an intermediate, a parameter, a named leaf or a
    constant.  Without ``params``, a leaf you made (``Value(0.3)``, a Module's weight) that has no
    label is a parameter, and a number the engine lifted into a leaf (the 2 of ``x * 2``) a constant."""
    if v in outputs:
        return "output"
    if v.children:
        return "intermediate"
    if v in params:
        return "parameter"
    if v.label:
        return "named leaf"
    made_by_engine = v.op.startswith("(")  # "(constant)", "(no_grad)": see Value.op
    return "parameter" if not params and not made_by_engine else "constant"


def as_values(values: Value | Iterable[Value] | None, what: str) -> set[Value]:
    if values is None:
        return set()
    if isinstance(values, Value):
        return {values}
    result: set[Value] = set()
    for i, v in enumerate(values):
        if not isinstance(v, Value):
            raise TypeError(f"{what}[{i}] must be a Value, got {type(v).__name__}: {v!r}")
        result.add(v)
    return result


_INFIX = ("+", "-", "*", "/", "**")


def d_of(num: str, den: str) -> str:
    """``dL/da``, ``d(#5)/d(#2)``: explain's notation for a derivative of one named Value by another."""
    return f"d{num if len(num) == 1 else f'({num})'}/d{den if len(den) == 1 else f'({den})'}"


def expression(
    v: Value, names: dict[Value, str], operands: Sequence[Value] | None = None, op: str | None = None
) -> str:
    """``v``'s op written out with its operands' names (``operands`` and ``op``: as drawn, by
    default all its children and its own op): ``a * b``, ``ReLU(c)``, ``c**2``, ``#0 + a + b``."""
    args = [names[c] for c in (v.children if operands is None else operands)]
    op = op or v.op or "?"
    if (op in _INFIX and len(args) == 2) or (op in ("+", "*") and len(args) > 2):  # n-ary: micrograd.sum
        return f" {op} ".join(args)
    if op.startswith("**") and len(args) == 1:
        return f"{args[0]}{op}"
    if op == "neg" and len(args) == 1:
        return f"-{args[0]}"
    return f"{op}({', '.join(args)})"


@dataclass(frozen=True)
class Contribution:
    """What one operand receives at one backward step: ``local * upstream = contribution``."""

    operand: Value
    local: float  # d(node)/d(operand), the op's local derivative
    contribution: float  # local derivative * upstream gradient, as the op's rule computes it
    total: float  # d(root)/d(operand) so far: the running sum of its contributions


@dataclass(frozen=True)
class BackwardStep:
    """One node of the backward pass: its upstream gradient d(root)/d(node) and what each operand receives.

    ``contributions`` is empty for a node built by hand without a derivative rule
    (``has_rule`` False): gradients stop there."""

    node: Value
    upstream: float
    contributions: tuple[Contribution, ...]
    has_rule: bool


@dataclass(frozen=True)
class BackwardTrace:
    """Backpropagation through a graph, step by step: what ``explain`` prints and the explorer shows.

    ``order`` is the forward (topological) order, ``names`` the display name of
    each Value (its label, or ``#i`` for its position in ``order``), ``steps``
    the ops in backward order and ``grads`` d(root)/d(v) for every Value."""

    root: Value
    order: list[Value]
    names: dict[Value, str]
    steps: list[BackwardStep]
    grads: dict[Value, float]


def backward_steps(root: Value, max_nodes: int | None = DEFAULT_MAX_NODES) -> BackwardTrace:
    """Run backpropagation through ``root``'s graph with the ops' own derivative rules,
    recording every step; every ``.grad`` is left as it was.

    >>> from micrograd import Value
    >>> a = Value(2.0, label="a"); L = a * a; L.label = "L"
    >>> trace = backward_steps(L)
    >>> [(c.local, c.total) for c in trace.steps[0].contributions]
    [(2.0, 2.0), (2.0, 4.0)]
    """
    if not isinstance(root, Value):
        raise TypeError(f"backward_steps() needs a Value, got {type(root).__name__}: {root!r}")
    return graph_model(root, max_nodes=max_nodes, what="backward_steps").backward()


def walk(
    root: Value,
    order: list[Value],
    names: dict[Value, str],
    hidden: frozenset[Value] = frozenset(),
    chains: Mapping[Value, Chain] | None = None,
) -> BackwardTrace:
    """The engine's own backward pass from ``root`` (``order``: its graph), observed step by step;
    what a ``hidden`` operand receives is left out of the steps (its total is kept); the step of a
    node in ``chains`` is shown as its chain's steps (``chains.chain_steps``), the engine's numbers."""
    steps: list[BackwardStep] = []
    chains = chains or {}
    link_grads: dict[Value, Any] = {}

    def chain_step(v: Value, g: float, parts: list[tuple[Value, float, float, float]]) -> None:
        link_grads[v] = g
        kept = tuple(Contribution(*part) for part in parts if part[0] not in hidden)
        steps.append(BackwardStep(v, g, kept, True))

    def record(v: Value, g: float, received: Sequence[Any] | None, grads: dict[Value, Any]) -> None:
        """One step of the engine's own backward pass, as it happens, with the local derivatives."""
        if received is None:
            steps.append(BackwardStep(v, g, (), False))  # built by hand without a rule
            return
        local = vjp(v, 1.0)  # the op's rule asked with 1: its local derivatives
        parts: list[Contribution] = []
        now: dict[Value, Any] = {}  # what each operand has after each contribution of this step
        for child, loc, contrib in zip(v.children, local, received):
            contrib = 0.0 if contrib is None else contrib
            before = now[child] if child in now else grads[child]  # (None: nothing yet)
            now[child] = contrib if before is None else before + contrib  # as the engine adds it
            parts.append(Contribution(child, 0.0 if loc is None else loc, contrib, now[child]))
        if v in chains:
            chain_steps(chains[v], g, [(c.local, c.contribution, c.total) for c in parts], chain_step)
            return
        steps.append(BackwardStep(v, g, tuple(c for c in parts if c.operand not in hidden), True))

    grads = backpropagate({root: 1.0}, observe=record)
    grads.update(link_grads)
    totals = {v: 0.0 if grads[v] is None else grads[v] for v in order}
    return BackwardTrace(root, order, names, steps, totals)


def hidden_starts(order: Sequence[Value], outputs: set[Value]) -> frozenset[Value]:
    """The start values of ``micrograd.sum`` (and ``dot``) the pictures leave out: a constant 0 the
    engine made for one ``+`` node, its first operand, and used nowhere else.  It adds nothing, so
    drawn it would only be a lone ``0`` starting every loss; the graph keeps it, every number is the
    engine's.

    >>> import micrograd
    >>> from micrograd import Value
    >>> a, b = Value(1.0), Value(2.0)
    >>> s = micrograd.sum([a, b])
    >>> hidden_starts([s._prev[0], a, b, s], {s}) == {s._prev[0]}
    True
    """
    uses: dict[Value, int] = {}
    for v in order:
        for c in v.children:
            uses[c] = uses.get(c, 0) + 1
    found = set()
    for v in order:
        if v.op != "+" or len(v.children) < 2:
            continue
        start = v.children[0]
        made_for_it = start.op == CONSTANT and not start.children and uses[start] == 1
        if made_for_it and start.data == 0.0 and start not in outputs:
            found.add(start)
    return frozenset(found)


@dataclass(frozen=True)
class GraphModel:
    """A graph as the pictures read it: ``order``, its Values in forward order; ``index``, each
    one's position (its id is ``n<index>``); ``names`` and ``roles`` (see ``role``);
    ``outputs``, the roots.  Made by ``graph_model``."""

    outputs: tuple[Value, ...]
    order: list[Value]
    index: dict[Value, int]
    names: dict[Value, str]
    roles: dict[Value, str]

    #: Values the pictures leave out: micrograd.sum's start of 0 (see ``hidden_starts``)
    hidden: frozenset[Value] = frozenset()
    #: nodes drawn as the lecture's chain of ``*`` and ``+`` (``graph_model(..., expand_dot=True)``);
    #: their chains' links are in ``order``, just before them
    chains: Mapping[Value, Chain] = field(default_factory=dict)

    def operands(self, v: Value) -> list[Value]:
        """``v``'s operands as the pictures draw them: its children but the hidden ones (a node
        drawn as a chain: its last ``+``'s two)."""
        if v in self.chains:
            return list(self.chains[v].operands)
        return [c for c in v.children if c not in self.hidden]

    def op(self, v: Value) -> str:
        """``v``'s op as the pictures draw it (a node drawn as a chain: its last ``+``)."""
        return "+" if v in self.chains else v.op

    def id(self, v: Value) -> str:
        """``v``'s id in every picture: ``n<i>``, its position in the forward order."""
        return f"n{self.index[v]}"

    def backward(self) -> BackwardTrace:
        """Backpropagation from the one output, step by step (the ``.grad`` fields are left alone)."""
        if len(self.outputs) != 1:
            raise ValueError(f"a backward pass starts from one output, this graph has {len(self.outputs)}")
        return walk(self.outputs[0], self.order, self.names, self.hidden, self.chains)


def graph_model(
    roots: Roots,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    what: str = "graph_model",
    advice: str = PICTURE_ADVICE,
    names: Mapping[Value, str] | None = None,
    expressions: bool = False,
    expand_dot: bool = False,
) -> GraphModel:
    """The ``GraphModel`` of the graph that computed ``roots``; ``params`` marks the leaves drawn
    as parameters; ``names`` names unlabelled Values (``model_names``: a model's parameters), and
    ``expressions`` the rest by the expression a learner would write (see ``names_of``);
    more than ``max_nodes`` Values raise ``GraphTooLargeError`` naming ``what`` and giving ``advice``.
    ``expand_dot``: every ``dot`` node (``weighted_sum``) and every sum of three terms or more
    (``micrograd.sum``, a neuron's ``micrograd.dot``) drawn as the lecture's chain of ``*`` and
    ``+`` (see ``micrograd.viz.chains``), its numbers the engine's.

    >>> from micrograd import Value
    >>> w = Value(0.5); L = w * 3
    >>> graph_model(L, names={w: "layer.w"}).names[w]
    'layer.w'
    """
    if not isinstance(expand_dot, bool):
        raise TypeError(f"{what}: expand_dot must be True or False, got {expand_dot!r}")
    order = graph_order(roots, max_nodes, what, advice)
    outputs = as_values(roots, f"{what}: root")
    param_set = as_values(params, f"{what}: params")
    hidden = hidden_starts(order, outputs)
    chains = {v: chain_of(v, hidden) for v in order if expand_dot and expandable(v, hidden)}
    if chains:  # each chain's links just before its node: after its operands, a forward order still
        order = [w for v in order for w in (*(chains[v].links if v in chains else ()), v)]
    return GraphModel(
        hidden=hidden,
        chains=chains,
        outputs=tuple(v for v in order if v in outputs),
        order=order,
        index={v: i for i, v in enumerate(order)},
        names=names_of(order, names, expressions),
        roles={v: role(v, outputs, param_set) for v in order},
    )
