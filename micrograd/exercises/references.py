"""The built-in ops a student's op is checked against, and what check knows about each: its
domain, its derivative in words, and the usual wrong derivatives (for hints).

``check.ops`` lists the names; ``like="tanh"`` picks ``UNARY["tanh"]``.
"""

from __future__ import annotations

import math as _pymath
from collections.abc import Callable
from typing import Any, cast

from .. import ops
from ..engine import Add, Function, FunctionType, Mul, ReLU, Tanh, Value
from ..math.floats import sigmoid as _fsigmoid
from ..math.floats import tanh as _ftanh

Point = tuple[float, ...]
Domain = Callable[..., bool]

# ---- the built-in ops a student's op can be checked against ------------------------------
# The references call copies of the ops' Function classes made here, with the rules the package
# defined (``builtin_rules``, kept when each op's class was made), never ``Value.tanh`` or
# ``Tanh.backward`` looked up at call time.  The lecture adds methods by patching the class
# (``Value.tanh = my_tanh``, ``Tanh.backward = my_rule``): a reference that called the patched
# method would compare the student's op with itself, and say RIGHT whatever it computes.


def frozen(fn: type[Function]) -> type[Function]:
    """A copy of the built-in op ``fn`` with its rules as the package wrote them: what the
    student patches later (``fn.backward``, or the Value method that calls ``fn``) is not seen.

    >>> from micrograd.engine import Tanh
    >>> reference = frozen(Tanh)
    >>> reference.apply(Value(0.5)).data == Value(0.5).tanh().data
    True
    """
    forward, backward = fn.builtin_rules or (fn.forward, fn.backward)
    namespace: dict[str, Any] = {
        "name": fn.name,
        "builtin": True,  # one float per operand, unchecked, as the op itself
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "__module__": __name__,
        "__doc__": f"The built-in {fn.name} as defined, for exercises.check.",
    }
    copy = FunctionType(f"Reference{fn.__name__}", (fn,), namespace)
    return cast("type[Function]", copy)


def with_defaults(params: tuple[Any, ...], defaults: tuple[float, ...]) -> tuple[Any, ...]:
    """The params given, then the op's defaults for the rest (a Value method's keyword defaults)."""
    return (*params, *defaults[len(params) :])


def unary(fn: type[Function], defaults: tuple[float, ...] = ()) -> Callable[..., Value]:
    reference = frozen(fn)
    return lambda x, *params: reference.apply(x, *with_defaults(params, defaults))


def binary(fn: type[Function]) -> Callable[..., Value]:
    reference = frozen(fn)
    return lambda a, b: reference.apply(a, b)


_SQUARE = frozen(Mul)  # x * x, as the lecture writes it

UNARY: dict[str, Callable[..., Value]] = {
    "exp": unary(ops.Exp),
    "expm1": unary(ops.Expm1),
    "log": unary(ops.Log),
    "log1p": unary(ops.Log1p),
    "sqrt": unary(ops.Sqrt),
    "tanh": unary(Tanh),
    "sigmoid": unary(ops.Sigmoid),
    "relu": unary(ReLU),
    "sin": unary(ops.Sin),
    "cos": unary(ops.Cos),
    "abs": unary(ops.Abs),
    "neg": unary(ops.Neg),
    "square": lambda x: _SQUARE.apply(x, x),
    "leaky_relu": unary(ops.LeakyReLU, (0.01,)),  # Value.leaky_relu's negative_slope
    "elu": unary(ops.ELU, (1.0,)),  # alpha
    "softplus": unary(ops.Softplus, (1.0, 20.0)),  # beta, threshold
}
BINARY: dict[str, Callable[..., Value]] = {
    "add": binary(Add),
    "sub": binary(ops.Sub),
    "mul": binary(Mul),
    "div": binary(ops.Div),
    "pow": binary(ops.Pow),  # Value ** Value
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


# Ops whose derivative at their kink has one accepted answer, not a convention: relu'(0) is 0 in
# micrograd 0.1.0, the lecture and PyTorch (and check_engine), so another number there is WRONG.
SETTLED_KINKS = {"relu"}


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
