"""For the type checker only: the methods of ``Value`` that the op catalogue attaches.

The lecture adds each op to ``Value`` after defining it (``Value.exp = ...``), and so do
``micrograd/ops/basic.py``, ``ops_math.py`` and ``activations.py``; a type checker cannot see
methods attached that way, so they are declared here, on a base class ``Value`` has
while type checking only (at run time its base is ``object``; see ``engine.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from ..engine import Operand, Value


class AttachedMethods:
    """The op catalogue's methods of ``Value``, by the module that attaches them."""

    # micrograd/ops/basic.py
    __lt__: ClassVar[Callable[[Value, Operand], bool]]
    __le__: ClassVar[Callable[[Value, Operand], bool]]
    __gt__: ClassVar[Callable[[Value, Operand], bool]]
    __ge__: ClassVar[Callable[[Value, Operand], bool]]
    __bool__: ClassVar[Callable[[Value], bool]]
    __float__: ClassVar[Callable[[Value], float]]
    item: ClassVar[Callable[[Value], float]]
    __neg__: ClassVar[Callable[[Value], Value]]
    __pos__: ClassVar[Callable[[Value], Value]]
    __abs__: ClassVar[Callable[[Value], Value]]
    abs: ClassVar[Callable[[Value], Value]]
    exp: ClassVar[Callable[[Value], Value]]
    expm1: ClassVar[Callable[[Value], Value]]
    log: ClassVar[Callable[[Value], Value]]
    log1p: ClassVar[Callable[[Value], Value]]
    sqrt: ClassVar[Callable[[Value], Value]]
    sigmoid: ClassVar[Callable[[Value], Value]]
    sin: ClassVar[Callable[[Value], Value]]
    cos: ClassVar[Callable[[Value], Value]]
    __sub__: ClassVar[Callable[[Value, Operand], Value]]
    __rsub__: ClassVar[Callable[[Value, Operand], Value]]
    __truediv__: ClassVar[Callable[[Value, Operand], Value]]
    __rtruediv__: ClassVar[Callable[[Value, Operand], Value]]
    __rpow__: ClassVar[Callable[[Value, Operand], Value]]
    pow: ClassVar[Callable[[Value, Operand], Value]]
    leaky_relu: ClassVar[Callable[..., Value]]
    elu: ClassVar[Callable[..., Value]]
    softplus: ClassVar[Callable[..., Value]]
    # micrograd/ops/scientific.py and micrograd/ops/activations.py
    tan: ClassVar[Callable[[Value], Value]]
    asin: ClassVar[Callable[[Value], Value]]
    acos: ClassVar[Callable[[Value], Value]]
    atan: ClassVar[Callable[[Value], Value]]
    sinh: ClassVar[Callable[[Value], Value]]
    cosh: ClassVar[Callable[[Value], Value]]
    asinh: ClassVar[Callable[[Value], Value]]
    acosh: ClassVar[Callable[[Value], Value]]
    atanh: ClassVar[Callable[[Value], Value]]
    log2: ClassVar[Callable[[Value], Value]]
    log10: ClassVar[Callable[[Value], Value]]
    exp2: ClassVar[Callable[[Value], Value]]
    erf: ClassVar[Callable[[Value], Value]]
    erfc: ClassVar[Callable[[Value], Value]]
    square: ClassVar[Callable[[Value], Value]]
    rsqrt: ClassVar[Callable[[Value], Value]]
    reciprocal: ClassVar[Callable[[Value], Value]]
    sign: ClassVar[Callable[[Value], Value]]
    floor: ClassVar[Callable[[Value], Value]]
    ceil: ClassVar[Callable[[Value], Value]]
    trunc: ClassVar[Callable[[Value], Value]]
    frac: ClassVar[Callable[[Value], Value]]
    silu: ClassVar[Callable[[Value], Value]]
    mish: ClassVar[Callable[[Value], Value]]
    relu6: ClassVar[Callable[[Value], Value]]
    softsign: ClassVar[Callable[[Value], Value]]
    logsigmoid: ClassVar[Callable[[Value], Value]]
    selu: ClassVar[Callable[[Value], Value]]
    __floor__: ClassVar[Callable[[Value], Value]]
    __ceil__: ClassVar[Callable[[Value], Value]]
    __trunc__: ClassVar[Callable[[Value], Value]]
    atan2: ClassVar[Callable[[Value, Operand], Value]]
    maximum: ClassVar[Callable[[Value, Operand], Value]]
    minimum: ClassVar[Callable[[Value, Operand], Value]]
    hypot: ClassVar[Callable[[Value, Operand], Value]]
    logaddexp: ClassVar[Callable[[Value, Operand], Value]]
    fmod: ClassVar[Callable[[Value, Operand], Value]]
    remainder: ClassVar[Callable[[Value, Operand], Value]]
    floor_divide: ClassVar[Callable[[Value, Operand], Value]]
    __mod__: ClassVar[Callable[[Value, Operand], Value]]
    __rmod__: ClassVar[Callable[[Value, Operand], Value]]
    __floordiv__: ClassVar[Callable[[Value, Operand], Value]]
    __rfloordiv__: ClassVar[Callable[[Value, Operand], Value]]
    round: ClassVar[Callable[..., Value]]
    __round__: ClassVar[Callable[..., Value]]
    clamp: ClassVar[Callable[..., Value]]
    gelu: ClassVar[Callable[..., Value]]
    hardtanh: ClassVar[Callable[..., Value]]
    celu: ClassVar[Callable[..., Value]]
    __int__: ClassVar[Callable[[Value], int]]
