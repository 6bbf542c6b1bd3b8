"""The built-in ops a student's op is checked against, and what check knows about each: its
domain, its derivative in words, and the usual wrong derivatives (for hints).

``check.ops`` lists the names; ``like="tanh"`` picks ``UNARY["tanh"]``.
"""

from __future__ import annotations

import math as _pymath
from collections.abc import Callable

from ..engine import Value
from ..math.floats import sigmoid as _fsigmoid
from ..math.floats import tanh as _ftanh

Point = tuple[float, ...]
Domain = Callable[..., bool]

# ---- the built-in ops a student's op can be checked against ------------------------------

UNARY: dict[str, Callable[..., Value]] = {
    "exp": lambda x: x.exp(),
    "expm1": lambda x: x.expm1(),
    "log": lambda x: x.log(),
    "log1p": lambda x: x.log1p(),
    "sqrt": lambda x: x.sqrt(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "abs": lambda x: abs(x),
    "neg": lambda x: -x,
    "square": lambda x: x * x,
    "leaky_relu": lambda x, *p: x.leaky_relu(*p),
    "elu": lambda x, *p: x.elu(*p),
    "softplus": lambda x, *p: x.softplus(*p),
}
BINARY: dict[str, Callable[..., Value]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
DOMAINS: dict[str, tuple[float, float]] = {
    "log": (0.0, _pymath.inf),
    "log1p": (-1.0, _pymath.inf),
    "sqrt": (0.0, _pymath.inf),
}
DOMAIN_PREDICATES: dict[str, Domain] = {"pow": lambda a, b: a > 0.0}
DERIVATIVES: dict[str, str] = {
    "exp": "d/dx exp(x) = exp(x)",
    "expm1": "d/dx (exp(x) - 1) = exp(x)",
    "log": "d/dx log(x) = 1/x",
    "log1p": "d/dx log(1 + x) = 1/(1 + x)",
    "sqrt": "d/dx sqrt(x) = 1/(2 sqrt(x))",
    "tanh": "d/dx tanh(x) = 1 - tanh(x)**2",
    "sigmoid": "d/dx sigmoid(x) = sigmoid(x) * (1 - sigmoid(x))",
    "relu": "d/dx relu(x) = 1 for x > 0, else 0 (0 at x = 0, as PyTorch)",
    "sin": "d/dx sin(x) = cos(x)",
    "cos": "d/dx cos(x) = -sin(x)",
    "abs": "d/dx |x| = sign(x) (0 at x = 0)",
    "neg": "d/dx (-x) = -1",
    "square": "d/dx x*x = 2x",
    "leaky_relu": "d/dx leaky_relu(x, slope) = 1 for x > 0, else slope",
    "elu": "d/dx elu(x, alpha) = 1 for x > 0, else alpha * exp(x)",
    "softplus": "d/dx softplus(x) = sigmoid(beta x)",
    "add": "d/da (a + b) = 1, d/db (a + b) = 1",
    "sub": "d/da (a - b) = 1, d/db (a - b) = -1",
    "mul": "d/da (a * b) = b, d/db (a * b) = a",
    "div": "d/da (a / b) = 1/b, d/db (a / b) = -a/b**2",
    "pow": "d/da a**b = b * a**(b-1), d/db a**b = a**b * log(a)",
}


def exp_or_inf(x: float) -> float:
    return _pymath.inf if x > 709.0 else _pymath.exp(x)


# The usual wrong derivatives, per op: (input i, (what the student returned, it as a function of the point)).
Mistake = tuple[str, Callable[..., float]]
MISTAKES: dict[str, list[tuple[int, Mistake]]] = {
    "tanh": [
        (0, ("grad_output * tanh(x)", lambda x: _ftanh(x))),
        (0, ("grad_output * (1 - tanh(x))", lambda x: 1 - _ftanh(x))),
        (0, ("grad_output * (1 + tanh(x)**2)", lambda x: 1 + _ftanh(x) ** 2)),
        (0, ("grad_output * (1 - x**2), with the input where tanh(x) belongs", lambda x: 1 - x * x)),
    ],
    "exp": [
        (0, ("grad_output * x * exp(x - 1), the power rule", lambda x: x * exp_or_inf(x - 1))),
        (0, ("grad_output * x", lambda x: x)),
        (0, ("grad_output * x * exp(x)", lambda x: x * exp_or_inf(x))),
    ],
    "sigmoid": [
        (0, ("grad_output * sigmoid(x)", lambda x: _fsigmoid(x))),
        (0, ("grad_output * (1 - sigmoid(x))", lambda x: 1 - _fsigmoid(x))),
        (0, ("grad_output * x * (1 - x), with the input where sigmoid(x) belongs", lambda x: x * (1 - x))),
        (0, ("grad_output * sigmoid(x) * (1 + sigmoid(x))", lambda x: _fsigmoid(x) * (1 + _fsigmoid(x)))),
    ],
    "relu": [
        (0, ("grad_output * x, the input instead of 0 or 1", lambda x: x)),
        (0, ("1 at x = 0; relu'(0) is 0 here and in PyTorch", lambda x: 1.0 if x >= 0 else 0.0)),
    ],
    "leaky_relu": [
        (0, ("0 for x < 0, forgetting the slope", lambda x, s=0.01: 1.0 if x > 0 else 0.0)),
        (0, ("grad_output * x * slope, the result instead of the derivative", lambda x, s=0.01: x * s)),
    ],
    "log": [
        (0, ("grad_output * log(x)", lambda x: _pymath.log(x) if x > 0 else _pymath.nan)),
        (0, ("grad_output * -1/x", lambda x: -1 / x if x else -_pymath.inf)),
    ],
    "sin": [(0, ("grad_output * -cos(x)", lambda x: -_pymath.cos(x)))],
    "cos": [(0, ("grad_output * sin(x), without the minus sign", lambda x: _pymath.sin(x)))],
    "mul": [
        (0, ("a for d/da: each input's gradient is the OTHER input", lambda a, b: a)),
        (1, ("b for d/db: each input's gradient is the OTHER input", lambda a, b: b)),
    ],
    "div": [
        (1, ("a/b**2 for d/db, missing the minus sign", lambda a, b: a / (b * b) if b else _pymath.nan)),
        (1, ("-1/b**2 for d/db, without a", lambda a, b: -1 / (b * b) if b else _pymath.nan)),
        (0, ("b for d/da instead of 1/b", lambda a, b: b)),
    ],
    "sub": [(1, ("1 for d/db; subtracting b flips its sign", lambda a, b: 1.0))],
}
