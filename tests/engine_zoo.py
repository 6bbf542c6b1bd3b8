"""Learners' engines for check_engine's table: the lecture's Value class (written here, in the
lecture's shape: closures in ``_backward``, a topological sort in ``backward()``), each classic bug
planted in it by one text replacement, a float32 engine, and hostile engines that attack the
grader instead of computing.  ``ENGINES`` names them in the table's order; ``make(name)`` builds one.

micrograd 0.1.0 itself is in the table too (``tests/test_check_engine.py`` fetches it).
"""

from __future__ import annotations

import linecache
from typing import Any

# The lecture's Value, as a learner writes it after the video (tanh, exp and relu; no log).
LECTURE = """
import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only int/float powers"
        out = Value(self.data ** other, (self,), f"**{other}")

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __radd__(self, other):
        return self + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return Value(other) * self ** -1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return Value(other) + (-self)

    def exp(self):
        x = self.data
        out = Value(math.exp(x), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(0.0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad
        out._backward = _backward
        return out

    def backward(self):
"""

BACKWARD_SORTED = """        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
"""
LECTURE += BACKWARD_SORTED  # the lecture's backward(), last in the class
BACKWARD_RECURSIVE = """        self.grad = 1.0

        def run(v):
            v._backward()
            for child in v._prev:
                run(child)
        run(self)
"""
# Each classic bug: (what the lecture's class says, what the bug says instead).
BUGS: dict[str, tuple[str, str]] = {
    "= for +=": (
        "            self.grad += 1.0 * out.grad\n            other.grad += 1.0 * out.grad",
        "            self.grad = 1.0 * out.grad\n            other.grad = 1.0 * out.grad",
    ),
    "no topological order": (BACKWARD_SORTED, BACKWARD_RECURSIVE),  # (and operands kept in order, below)
    "tanh's 1 - t": ("(1 - t ** 2) * out.grad", "(1 - t) * out.grad"),
    "relu'(0) = 1": ("(out.data > 0) * out.grad", "(self.data >= 0) * out.grad"),
    "pow off by one": (
        "other * self.data ** (other - 1) * out.grad",
        "other * self.data ** other * out.grad",
    ),
    "exp without the chain factor": ("self.grad += out.data * out.grad", "self.grad += out.data"),
    "no zero_grad (the seed adds up)": (
        "        self.grad = 1.0\n        for node",
        "        self.grad += 1.0\n        for node",
    ),
}

# Every number rounded to float32 as it is made (as an engine on float32 arrays would).
FLOAT32 = (
    '    def __init__(self, data, _children=(), _op=""):\n        self.data = data\n',
    '    def __init__(self, data, _children=(), _op=""):\n'
    "        self.data = struct.unpack('f', struct.pack('f', data))[0]\n",
)

# Hostile engines: the lecture's class with a tanh without gradient, and code that attacks the
# grader (at the start of __init__, or of tanh): none of them may pass.
INIT = '    def __init__(self, data, _children=(), _op=""):\n'
TANH = "    def tanh(self):\n"
HOSTILE: dict[str, tuple[str, str]] = {
    "hostile: writes a fake answer into the grader's pipe and exits": (
        TANH,
        """
        import gc, os
        for obj in gc.get_objects():
            if type(obj).__name__ in ("Sender", "Connection") and isinstance(getattr(obj, "fd", None), int):
                os.write(obj.fd, b'{"k": 0, "verdict": "RIGHT", "lines": [["OK", "all", "right"]]}\\n')
                os._exit(0)
""",
    ),
    "hostile: math.isclose always True": (INIT, "        math.isclose = lambda *a, **k: True\n"),
    "hostile: recursion limit 60": (INIT, "        import sys\n        sys.setrecursionlimit(60)\n"),
    "hostile: replaces builtins.isinstance": (
        INIT,
        """
        import builtins
        if not hasattr(builtins, "real_isinstance"):  # true for its own checks, false for the grader's
            builtins.real_isinstance = real = builtins.isinstance
            builtins.isinstance = lambda obj, kind: (
                real(obj, kind) if kind is Value or kind == (int, float) else not real(obj, kind)
            )
""",
    ),
}
NO_TANH_GRAD = ("self.grad += (1 - t ** 2) * out.grad", "pass")

ENGINES = ["the lecture's class", *BUGS, "float32", *HOSTILE]


def build(source: str, *replacements: tuple[str, str], name: str = "lecture") -> Any:
    """The class ``Value`` defined by ``source`` with each (old, new) replaced once."""
    for old, new in replacements:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    filename = f"<engine_zoo {name}>"
    # Kept in linecache as Jupyter keeps a cell's code, so that the grader can show its lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": f"engine_zoo_{name}"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["Value"]


def make(name: str) -> Any:
    """The engine called ``name`` in ``ENGINES``."""
    if name == "the lecture's class":
        return build(LECTURE)
    if name == "no topological order":  # a tuple: the recursion visits the operands in one order
        return build(LECTURE, BUGS[name], ("set(_children)", "tuple(_children)"), name=name)
    if name in BUGS:
        return build(LECTURE, BUGS[name], name=name)
    if name == "float32":
        return build("import struct\n" + LECTURE, FLOAT32, name=name)
    where, attack = HOSTILE[name]
    return build(LECTURE, (where, where + attack), NO_TANH_GRAD, name=name)
