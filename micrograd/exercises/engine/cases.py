"""What ``check_engine`` builds with a learner's ``Value`` class: small expressions, written as
lines of Python (``"e = a * b"``) so that every node has a name and a formula to show.

An expression runs twice, once with the learner's class and once with this engine's ``Value``
(the reference), and the two are compared node by node.  Which methods a line needs is read
from its syntax (``2.0 + a`` needs ``__radd__``, ``tanh(n)`` needs ``tanh``): a class without
one of them is told which one is not written yet, instead of failing with a ``TypeError``.

>>> needs("out = 2.0 * tanh(a) - b")
['__sub__', '__rmul__', 'tanh']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import formulas
from ..formulas import Tree

# symbol -> (symbol, method, reflected method: the one Python calls for ``2.0 + a``)
BINARY: dict[str, tuple[str, str, str]] = {
    symbol: (symbol, plain, reflected) for symbol, (_, plain, reflected) in formulas.BINARY.items()
}
UNARY_METHODS = ("exp", "tanh", "relu", "log")  # called as functions in the lines: tanh(n)

# Each op's rules in words, for the hints: where its forward and its backward live, and what
# its local derivatives are (the learner's _backward multiplies them by out.grad).
RULES: dict[str, tuple[str, str]] = {
    "+": ("out.data = self.data + other.data", "d(a + b)/da = 1 and d(a + b)/db = 1"),
    "-": ("a - b is a + (-b)", "d(a - b)/da = 1 and d(a - b)/db = -1"),
    "*": ("out.data = self.data * other.data", "d(a * b)/da = b and d(a * b)/db = a"),
    "/": ("a / b is a * b**-1", "d(a / b)/da = 1/b and d(a / b)/db = -a/b**2"),
    "**": ("out.data = self.data ** other", "d(a**n)/da = n * a**(n - 1)"),
    "exp": ("out.data = math.exp(self.data)", "d exp(a)/da = exp(a), the output itself"),
    "tanh": ("out.data = math.tanh(self.data)", "d tanh(a)/da = 1 - tanh(a)**2"),
    "relu": ("out.data = max(0, self.data)", "d relu(a)/da = 1 if a > 0 else 0"),
    "log": ("out.data = math.log(self.data)", "d log(a)/da = 1/a"),
}
METHOD_OF = {
    **{symbol: method for symbol, method, _ in BINARY.values()},
    **{name: name for name in UNARY_METHODS},
}


@dataclass(eq=False)  # one object per case: hashed by identity (refs caches each)
class Expr:
    """Leaves (name -> number) and lines ``name = formula``; the last line's node is the output."""

    title: str
    leaves: dict[str, float]
    lines: list[str]
    chain: bool = False  # an op fed into itself: its rule must multiply by out.grad
    names: list[str] = field(init=False)
    formulas: dict[str, str] = field(init=False)
    trees: dict[str, Tree] = field(init=False)  # parsed here, before any learner's code runs
    needed: list[str] = field(init=False)  # the methods of Value it calls

    def __post_init__(self) -> None:
        self.formulas = {}
        for line in self.lines:
            name, formula = (part.strip() for part in line.split("=", 1))
            self.formulas[name] = formula
        self.names = [*self.leaves, *self.formulas]
        self.trees = {name: formulas.parse(formula) for name, formula in self.formulas.items()}
        self.needed = []
        for tree in self.trees.values():
            self.needed += [m for m in formulas.methods(tree) if m not in self.needed]

    @property
    def at(self) -> str:
        """The leaves' numbers, for messages: ``a=2, b=-3``."""
        return ", ".join(f"{k}={v:g}" for k, v in self.leaves.items())


def needs(line: str) -> list[str]:
    """The methods of Value a line calls, outermost first, each once."""
    return formulas.methods(formulas.parse(line.split("=", 1)[-1]))


def one(title: str, line: str, chain: bool = False, **leaves: float) -> Expr:
    return Expr(title, dict(leaves), [f"out = {line}"], chain)


# Each op alone (every node used once, so accumulation and order cannot matter), then fed into
# itself (``chain``: the inner node's out.grad is not 1), then with plain numbers on either side,
# then where the rules are easiest to get wrong: relu at its kink, powers 0, 1 and negative,
# tanh and exp at large inputs (division by a negative is in every case of /).
OP_CASES: dict[str, list[Expr]] = {
    "+": [
        one("a + b", "a + b", a=2.0, b=-3.0),
        one("(a + b) + c", "(a + b) + c", True, a=2.0, b=-3.0, c=0.5),
        one("a + 2.0", "a + 2.0", a=2.0),
        one("2.0 + a", "2.0 + a", a=2.0),
    ],
    "*": [
        one("a * b", "a * b", a=2.0, b=-3.0),
        one("(a * b) * c", "(a * b) * c", True, a=2.0, b=-3.0, c=0.5),
        one("a * 2.0", "a * 2.0", a=-1.5),
        one("2.0 * a", "2.0 * a", a=-1.5),
    ],
    "-": [
        one("a - b", "a - b", a=2.0, b=-3.0),
        one("-a", "-a", a=2.0),
        one("a - 2.0", "a - 2.0", a=2.0),
        one("2.0 - a", "2.0 - a", a=2.0),
    ],
    "/": [
        one("a / b", "a / b", a=2.0, b=-4.0),
        one("(a / b) / c", "(a / b) / c", True, a=2.0, b=-4.0, c=0.5),
        one("a / 2.0", "a / 2.0", a=3.0),
        one("2.0 / a", "2.0 / a", a=-4.0),
    ],
    "**": [
        one("a ** 2", "a ** 2", a=-3.0),
        one("a ** 3", "a ** 3", a=1.5),
        one("a ** -1", "a ** -1", a=-4.0),
        one("a ** 0.5", "a ** 0.5", a=2.25),
        one("(a ** 2) ** 3", "(a ** 2) ** 3", True, a=0.8),
        one("a ** 0", "a ** 0", a=2.5),  # the edges of n * a**(n - 1): 0, 1, and negative below
        one("a ** 1", "a ** 1", a=2.5),
        one("a ** -2", "a ** -2", a=-1.5),
    ],
    "exp": [
        one("exp(a)", "exp(a)", a=0.5),
        one("exp(exp(a))", "exp(exp(a))", True, a=-0.7),
        one("exp(a) of a large a", "exp(a)", a=50.0),
    ],
    "tanh": [
        one("tanh(a)", "tanh(a)", a=0.5),
        one("tanh(tanh(a))", "tanh(tanh(a))", True, a=-1.2),
        one("tanh(a) near 1", "tanh(a)", a=20.0),  # saturated: the gradient is 0 on both sides
        one("tanh(a) near -1", "tanh(a)", a=-20.0),
    ],
    "relu": [
        one("relu(a > 0)", "relu(a)", a=1.5),
        one("relu(a < 0)", "relu(a)", a=-1.5),
        one("relu(relu(a))", "relu(relu(a))", True, a=2.5),
        one("relu(a = 0)", "relu(a)", a=0.0),  # the kink: relu'(0) = 0, as micrograd 0.1.0 and PyTorch
    ],
    "log": [one("log(a)", "log(a)", a=2.5), one("log(log(a))", "log(log(a))", True, a=5.0)],
}
OPS = list(OP_CASES)

# backward()'s structure.  Accumulation: a node used twice by one op (its rule must add, +=).
ACCUMULATION = {
    "+": Expr("b = a + a", {"a": 3.0}, ["b = a + a"]),
    "*": Expr("b = a * a", {"a": 3.0}, ["b = a * a"]),
}
# Topological order: a reused non-leaf node (b feeds both c and b*b), the case karpathy gave
# against a plain recursive backward: b's rule must run only once both users have added in.
TOPOLOGICAL = Expr("b = a * a; c = b + b * b", {"a": 3.0}, ["b = a * a", "bb = b * b", "c = b + bb"])
# Zeroing: a graph of one op, where micrograd 0.1.0, PyTorch and this engine agree that a second
# backward() without zeroing adds the same gradients again (micrograd 0.1.0 sets the output's
# own grad to 1, and adds into the others).
ZEROING = Expr("c = a * b, backward() twice", {"a": 2.0, "b": -3.0}, ["c = a * b"])

# The lecture's expressions (micrograd's video and README), rewritten one node per line.
NEURON = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}
NEURON_LINES = [
    "x1w1 = x1 * w1",
    "x2w2 = x2 * w2",
    "x1w1x2w2 = x1w1 + x2w2",
    "n = x1w1x2w2 + b",
    "o = tanh(n)",
]
README_LINES = [
    "c = a + b",
    "d = a * b + b**3",
    "c1 = c + c + 1",
    "c2 = c1 + 1 + c1 + (-a)",
    "d1 = d + d * 2 + relu(b + a)",
    "d2 = d1 + 3 * d1 + relu(b - a)",
    "e = c2 - d2",
    "f = e**2",
    "g = f / 2.0",
    "g1 = g + 10.0 / f",
]
LECTURE = [
    Expr(
        "L = (a*b + c) * f",
        {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0},
        ["e = a * b", "d = e + c", "L = d * f"],
    ),
    Expr(
        "neuron o = tanh(x1*w1 + x2*w2 + b)",
        NEURON,
        NEURON_LINES,
    ),
    Expr(
        "neuron, tanh from exp: o = (e - 1) / (e + 1)",
        NEURON,
        [*NEURON_LINES[:-1], "e = exp(2 * n)", "o = (e - 1) / (e + 1)"],
    ),
    Expr(
        "a and b used twice: f = (a*b) * (a+b)",
        {"a": -2.0, "b": 3.0},
        ["d = a * b", "e = a + b", "f = d * e"],
    ),
    Expr(
        "micrograd's README expression",
        {"a": -4.0, "b": 2.0},
        README_LINES,
    ),
]


def expression(spec: list[Any]) -> Expr:
    """One of ``check_engine``'s expressions by its name as the playground's lab sends it:
    ``["op", "+", 1]`` (``OP_CASES["+"][1]``), ``["lecture", 0]`` or ``["topological"]``.

    >>> expression(["topological"]) is TOPOLOGICAL
    True
    """
    if spec[0] == "op":
        return OP_CASES[str(spec[1])][int(spec[2])]
    if spec[0] == "lecture":
        return LECTURE[int(spec[1])]
    return TOPOLOGICAL
