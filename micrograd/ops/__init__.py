"""The op catalogue beyond the lecture's five (``engine.py`` has ``+``, ``*``, ``**``, ``tanh``, ``relu``).

Each op is a ``Function``, its ``forward`` beside its ``backward``, and the line that makes it a
method of ``Value`` follows it, as the lecture adds its ops: the one place where ``Value`` gets
its methods beyond the lecture's.  Importing this package runs all four modules' lines, so once
``import micrograd`` returns every method is the real one, and a method a user attaches the
lecture's way afterwards (``Value.gelu = my_gelu``) stays theirs.  The type checker's view of
these methods, ``_core/value_methods.py``, is generated from the class they leave
(``scripts/gen_value_methods.py``).  Loading the whole catalogue costs ``import micrograd`` about
10 ms once per process (benchmarks/history.md, issue 45, has the numbers), less than a lazy
loader's machinery is worth.

* ``basic``: ``-``, ``/``, ``Value ** Value``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sigmoid``,
  ``sin``, ``cos``, ``leaky_relu``, ``elu``, ``softplus``, comparisons, and the few ops of many
  operands a neuron and a loss use (``sum``, ``dot``, ``Pick``);
* ``scientific``: ``tan`` to ``erf``, the roundings, ``clamp``, ``atan2``, ``maximum``, ``%``, ``//``;
* ``activations``: ``gelu``, ``silu``, ``mish``, ``hardtanh``, ``relu6``, ``softsign``, ``selu``, ``celu``;
* ``reductions``: ``max``, ``min``, ``logsumexp``, ``softmax``, ``log_softmax`` of a list.

May import: ``engine``, ``_core`` and ``math``; never func, compile, viz, exercises or nn.

>>> from micrograd import Value
>>> x = Value(2.0)
>>> y = (x.exp() - x / 4).log()
>>> y.backward()
>>> round(x.grad, 6)
1.036289
"""

from __future__ import annotations

from . import activations as activations
from . import basic as basic
from . import reductions as reductions
from . import scientific as scientific
from .activations import CELU, GELU, SELU, Hardtanh, LogSigmoid, Mish, ReLU6, SiLU, Softsign
from .basic import (
    ELU,
    Abs,
    Cos,
    DetachedMax,
    Div,
    Dot,
    Exp,
    Expm1,
    LeakyReLU,
    Log,
    Log1p,
    Neg,
    Pick,
    Pow,
    Sigmoid,
    Sin,
    Softplus,
    Sqrt,
    Sub,
    Sum,
    dot,
    sum,  # noqa: A004 - torch.sum's name
    weighted_sum,
)
from .reductions import LogSumExp, Max, Min
from .scientific import (
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atan2,
    Atanh,
    Ceil,
    Clamp,
    Cosh,
    Erf,
    Erfc,
    Exp2,
    Floor,
    FloorDivide,
    Fmod,
    Frac,
    Hypot,
    Log2,
    Log10,
    LogAddExp,
    Maximum,
    Minimum,
    Reciprocal,
    Remainder,
    Round,
    Rsqrt,
    Sign,
    Sinh,
    Square,
    Tan,
    Trunc,
)

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "SELU",
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "Ceil",
    "Clamp",
    "Cos",
    "Cosh",
    "DetachedMax",
    "Div",
    "Dot",
    "Erf",
    "Erfc",
    "Exp",
    "Exp2",
    "Expm1",
    "Floor",
    "FloorDivide",
    "Fmod",
    "Frac",
    "Hardtanh",
    "Hypot",
    "LeakyReLU",
    "Log",
    "Log1p",
    "Log2",
    "Log10",
    "LogAddExp",
    "LogSigmoid",
    "LogSumExp",
    "Max",
    "Maximum",
    "Min",
    "Minimum",
    "Mish",
    "Neg",
    "Pick",
    "Pow",
    "ReLU6",
    "Reciprocal",
    "Remainder",
    "Round",
    "Rsqrt",
    "SiLU",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Square",
    "Sub",
    "Sum",
    "Tan",
    "Trunc",
    "dot",
    "sum",
    "weighted_sum",
]
