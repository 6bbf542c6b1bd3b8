"""Break-it's wrong gradients are the ones micrograd 0.1.0's engine computes with the bug planted
(issue 44, item 6).

At test time, micrograd 0.1.0's ``engine.py`` (fetched from PyPI by ``benchmarks.install_reference``;
the test skips, saying why, when it cannot be) is changed by a few text substitutions, each of which
must find its target exactly, and executed as a module of its own:

- ``_prev = set(_children)`` becomes an ordered tuple of the operands, each once as in the set: the
  one assumption break-it states (a set's order follows the Values' hashes, so 0.1.0 itself may
  visit ``a * b``'s operands in either order from one run to the next);
- ``exp`` and ``tanh`` are added as the lecture adds them (a method building ``out`` with a
  ``_backward`` closure that adds ``out.data * out.grad`` or ``(1 - t**2) * out.grad``);
- "overwrite": every ``.grad +=`` in the ``_backward`` closures becomes ``.grad =``;
- "no-topo": ``backward()`` keeps ``self.grad = 1`` and replaces the topological sort by the
  recursion break-it names, ``def _bwd(v): v._backward(); for c in v._prev: _bwd(c)``.

Each of 400 seeded random graphs (sums, products, powers, relu, exp, tanh, constants, with reused
Values) is built twice from one recipe, on this package's Value and on the planted engine's, and
every Value's gradient after the planted ``backward()`` is compared with ``wrong_gradients``' wrong
one, to 1e-12.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from micrograd import Value
from micrograd.viz.mistakes import wrong_gradients
from tests.micrograd_reference import ensure_installed

GRAPHS = 400
TOLERANCE = 1e-12  # relative, and absolute near 0

# The lecture's exp and tanh, written for this test in the lecture's style: a method that makes
# ``out`` and gives it a ``_backward`` closure adding into the operand's .grad.
LECTURE_OPS = """
    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward

        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward

        return out

"""

NO_TOPO_BACKWARD = """    def backward(self):
        self.grad = 1
        def _bwd(v):
            v._backward()
            for child in v._prev:
                _bwd(child)
        _bwd(self)

"""


def substitute(source: str, pattern: str, replacement: str, count: int) -> str:
    """``source`` with ``pattern`` (a regex) replaced, after checking it occurs exactly ``count``
    times: an upstream file that changed fails here instead of planting nothing."""
    found = len(re.findall(pattern, source, flags=re.DOTALL))
    assert found == count, f"expected {count} of {pattern!r} in micrograd 0.1.0's engine.py, found {found}"
    return re.sub(pattern, lambda _: replacement, source, flags=re.DOTALL)


def upstream_engine_source() -> str:
    ensure_installed()
    from benchmarks import install_reference

    return install_reference.upstream_file("engine").read_text(encoding="utf-8")


def planted(mistake: str) -> type:
    """micrograd 0.1.0's Value with ordered operands, the lecture's exp and tanh, and ``mistake``."""
    source = "import math\n" + upstream_engine_source()
    source = substitute(source, r"set\(_children\)", "tuple(dict.fromkeys(_children))", 1)
    source = substitute(
        source, r"\n    def backward\(self\):\n", LECTURE_OPS + "    def backward(self):\n", 1
    )
    if mistake == "overwrite":
        source = substitute(source, r"\.grad \+= ", ".grad = ", 8)  # add 2, mul 2, pow, relu, exp, tanh
    elif mistake == "no-topo":
        source = substitute(source, r"    def backward\(self\):\n.*?(?=    def __neg__)", NO_TOPO_BACKWARD, 1)
    else:
        raise ValueError(f"no planting for {mistake!r}")
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<micrograd 0.1.0 engine.py, {mistake} planted>", "exec"), namespace)
    engine: type = namespace["Value"]
    return engine


Step = tuple[str, int, int]
UNARY: dict[str, Callable[[Any], Any]] = {
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "relu": lambda x: x.relu(),
    "square": lambda x: x**2,
    "cube": lambda x: x**3,
    "add_const": lambda x: x + 1.5,
    "mul_const": lambda x: x * -0.7,
}
BINARY: dict[str, Callable[[Any, Any], Any]] = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y}
OPS = sorted(UNARY) + sorted(BINARY) * 3  # mostly two-operand ops: reuse is what the bugs need


def recipe(rng: random.Random) -> tuple[list[float], list[Step]]:
    """2 to 4 inputs and 2 to 9 steps, each an op on earlier nodes (recent ones more often)."""
    xs = [round(rng.uniform(-2.0, 2.0), 3) for _ in range(rng.randint(2, 4))]
    steps: list[Step] = []
    for k in range(rng.randint(2, 9)):
        n = len(xs) + k
        steps.append((rng.choice(OPS), recent(rng, n), recent(rng, n)))
    return xs, steps


def recent(rng: random.Random, n: int) -> int:
    """One of nodes 0..n-1, the last most often."""
    return n - 1 - min(int(rng.expovariate(0.5)), n - 1)


def build(engine: Callable[[float], Any], xs: list[float], steps: list[Step]) -> list[Any]:
    """Every node of the recipe on ``engine``'s Values: the inputs, each step's result, then the
    output: the last step's result plus the one before (more reuse than either alone)."""
    nodes = [engine(x) for x in xs]
    for op, i, j in steps:
        nodes.append(UNARY[op](nodes[i]) if op in UNARY else BINARY[op](nodes[i], nodes[j]))
    return [*nodes, nodes[-1] + nodes[-2]]


def close(ours: float, theirs: float) -> bool:
    if not (math.isfinite(ours) and math.isfinite(theirs)):
        return ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    return math.isclose(ours, theirs, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def difference(ours: float, theirs: float) -> float:
    """How far apart, relative to the larger (absolute below 1)."""
    if ours == theirs or not (math.isfinite(ours) and math.isfinite(theirs)):
        return 0.0
    return abs(ours - theirs) / max(1.0, abs(ours), abs(theirs))


@pytest.mark.parametrize("mistake", ["overwrite", "no-topo"])
def test_break_it_gives_what_micrograd_0_1_0_gives_with_the_bug_planted(mistake: str) -> None:
    engine = planted(mistake)
    rng = random.Random(44)
    changed = compared = 0
    worst = 0.0
    for g in range(GRAPHS):
        xs, steps = recipe(rng)
        ours, theirs = build(Value, xs, steps), build(engine, xs, steps)
        broken = wrong_gradients(ours[-1], mistake)
        theirs[-1].backward()
        for k, (v, u) in enumerate(zip(ours, theirs)):
            if v not in broken.wrong:
                assert u.grad == 0, f"graph {g}: node {k} is not in our graph but has a gradient"
                continue
            wrong = broken.wrong[v]
            assert close(wrong, float(u.grad)), (
                f"graph {g} {steps} from {xs}: node {k}'s wrong gradient is {wrong!r} in break-it, "
                f"{u.grad!r} in micrograd 0.1.0 with {mistake} planted"
            )
            worst = max(worst, difference(wrong, float(u.grad)))
            compared += 1
        changed += broken.first is not None
    print(f"{mistake}: {GRAPHS} graphs, {changed} changed, {compared} gradients, max diff {worst:.3g}")
    assert changed >= GRAPHS // 4  # the graphs exercise the bug, not only agree on right numbers


def test_the_issues_example_keeps_the_last_contribution_of_build_topos_order() -> None:
    """issue 44: a = -1.133, b = 1.386, root = (b + a) + a.exp(): with = for +=, micrograd 0.1.0
    runs root's rule, then a.exp()'s, then b + a's, which writes a last: a.grad is 1, not 0.322."""
    engine = planted("overwrite")
    for V in (Value, engine):
        a, b = V(-1.133), V(1.386)
        root = (b + a) + a.exp()
        if V is Value:
            assert wrong_gradients(root, "overwrite")[a] == (pytest.approx(1 + math.exp(-1.133)), 1.0)
        else:
            root.backward()
            assert a.grad == 1.0
