"""Random expression DAGs for property tests, built from every op of the engine.

A recipe is a list of steps; each step applies one op to earlier nodes (inputs
or results), so subexpressions are shared.  The same recipe runs on Values and,
for the PyTorch oracle, on float64 tensors.  ``safe`` says whether a step's
operands stay away from kinks and domain edges, where finite differences and
derivatives disagree by definition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from micrograd import Value

KINK = 1e-2  # distance kept from kinks (relu, abs, ...) and domain edges (log, sqrt, /)


def _activation(x: Any, name: str, *args: float, **kwargs: Any) -> Any:
    """x.name(*args, **kwargs) on a Value; torch.nn.functional.name(x, ...) on a tensor."""
    method = getattr(x, name, None)
    if method is not None:
        return method(*args, **kwargs)
    import torch

    return getattr(torch.nn.functional, name)(x, *args, **kwargs)


# name -> (apply(*operands), is the point safe?(*operand data))
UNARY: dict[str, tuple[Callable[..., Any], Callable[..., bool]]] = {
    "neg": (lambda x: -x, lambda a: True),
    "exp": (lambda x: x.exp(), lambda a: a < 5),
    "log": (lambda x: x.log(), lambda a: a > 0.1),
    "sqrt": (lambda x: x.sqrt(), lambda a: a > 0.1),
    "tanh": (lambda x: x.tanh(), lambda a: True),
    "sigmoid": (lambda x: x.sigmoid(), lambda a: True),
    "relu": (lambda x: x.relu(), lambda a: abs(a) > KINK),
    "leaky_relu": (lambda x: _activation(x, "leaky_relu", 0.1), lambda a: abs(a) > KINK),
    "elu": (lambda x: _activation(x, "elu"), lambda a: abs(a) > KINK),
    "softplus": (lambda x: _activation(x, "softplus"), lambda a: abs(a - 20) > KINK),
    "sin": (lambda x: x.sin(), lambda a: True),
    "cos": (lambda x: x.cos(), lambda a: True),
    "abs": (lambda x: abs(x), lambda a: abs(a) > KINK),
    "square": (lambda x: x**2, lambda a: True),
    "cube": (lambda x: x**3, lambda a: True),
    "pow_half": (lambda x: x**0.5, lambda a: a > 0.1),
    "pow_neg": (lambda x: x**-1.5, lambda a: a > 0.1),
    "add_const": (lambda x: x + 1.5, lambda a: True),
    "rsub_const": (lambda x: 2.0 - x, lambda a: True),
    "mul_const": (lambda x: 0.7 * x, lambda a: True),
    "rdiv_const": (lambda x: 1.0 / x, lambda a: abs(a) > 0.1),
    "rpow_const": (lambda x: 1.5**x, lambda a: a < 5),
    # the op catalogue (micrograd/ops/scientific.py, activations.py), the smooth ones
    "atan": (lambda x: x.atan(), lambda a: True),
    "asinh": (lambda x: x.asinh(), lambda a: True),
    "sinh": (lambda x: x.sinh(), lambda a: abs(a) < 5),
    "erf": (lambda x: x.erf(), lambda a: True),
    "rsqrt": (lambda x: x.rsqrt(), lambda a: a > 0.1),
    "gelu": (lambda x: _activation(x, "gelu"), lambda a: True),
    "gelu_tanh": (lambda x: _activation(x, "gelu", approximate="tanh"), lambda a: True),
    "silu": (lambda x: _activation(x, "silu"), lambda a: True),
    "mish": (lambda x: _activation(x, "mish"), lambda a: True),
    "logsigmoid": (lambda x: _activation(x, "logsigmoid"), lambda a: True),
    "softsign": (lambda x: _activation(x, "softsign"), lambda a: abs(a) > KINK),
    "selu": (lambda x: _activation(x, "selu"), lambda a: abs(a) > KINK),
}
BINARY: dict[str, tuple[Callable[..., Any], Callable[..., bool]]] = {
    "add": (lambda x, y: x + y, lambda a, b: True),
    "sub": (lambda x, y: x - y, lambda a, b: True),
    "mul": (lambda x, y: x * y, lambda a, b: True),
    "div": (lambda x, y: x / y, lambda a, b: abs(b) > 0.1),
    "pow": (lambda x, y: x**y, lambda a, b: a > 0.1 and abs(b) < 4),
    "atan2": (lambda x, y: x.atan2(y), lambda a, b: a * a + b * b > 0.1 and (abs(a) > KINK or b > 0)),
    "hypot": (lambda x, y: x.hypot(y), lambda a, b: a * a + b * b > 0.1),
    "logaddexp": (lambda x, y: x.logaddexp(y), lambda a, b: True),
    "maximum": (lambda x, y: x.maximum(y), lambda a, b: abs(a - b) > KINK),
}
ALL_OPS = sorted(UNARY) + sorted(BINARY)

Step = tuple[str, int, int]


@st.composite
def recipes(draw: st.DrawFn, n_inputs: int = 3, max_steps: int = 8) -> tuple[list[float], list[Step]]:
    xs = draw(st.lists(st.floats(-2.0, 2.0), min_size=n_inputs, max_size=n_inputs))
    steps: list[Step] = []
    for k in range(draw(st.integers(1, max_steps))):
        n_nodes = n_inputs + k
        op = draw(st.sampled_from(ALL_OPS))
        # favour recent nodes so the DAG grows deep, but any earlier node can be shared
        i = draw(st.integers(0, n_nodes - 1))
        j = draw(st.integers(0, n_nodes - 1))
        steps.append((op, i, j))
    return xs, steps


def run(steps: Sequence[Step], inputs: Sequence[Any], data: Callable[[Any], float]) -> tuple[Any, bool]:
    """Evaluate a recipe; the output is the sum of all nodes (so every step matters).

    Returns (output, safe): safe is False if some op met a kink or domain edge,
    or a value grew beyond what finite differences can check well.
    """
    nodes = list(inputs)
    safe = True
    for op, i, j in steps:
        if op in UNARY:
            f, ok = UNARY[op]
            safe = safe and ok(data(nodes[i]))
            nodes.append(f(nodes[i]))
        else:
            f, ok = BINARY[op]
            safe = safe and ok(data(nodes[i]), data(nodes[j]))
            nodes.append(f(nodes[i], nodes[j]))
        value = data(nodes[-1])
        safe = safe and math.isfinite(value) and abs(value) < 1e3
    out = nodes[len(inputs)]
    for n in nodes[len(inputs) + 1 :]:
        out = out + n
    return out, safe


def on_values(steps: Sequence[Step]) -> Callable[..., Value]:
    """The recipe as a function of its input Values (for gradcheck)."""
    return lambda *vs: run(steps, vs, lambda v: v.data)[0]


def build(recipe: tuple[list[float], list[Step]], skip_unsafe: bool = True) -> tuple[list[Value], Value]:
    """The recipe on fresh input Values: (inputs, output).  With ``skip_unsafe``,
    hypothesis skips the example if an op meets a kink or domain edge."""
    xs, steps = recipe
    inputs = [Value(v) for v in xs]
    out, safe = run(steps, inputs, lambda v: v.data)
    if skip_unsafe:
        assume(safe)
    return inputs, out
