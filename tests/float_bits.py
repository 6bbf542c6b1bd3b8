"""Floats as their bits, for the tests that say "bit for bit": ``==`` takes -0.0 for 0.0 and
never takes a nan for itself, so a compiled replay and the eager engine are compared by bits."""

from __future__ import annotations

import math
import struct

import numpy as np


def bits(xs: list[float]) -> list[bytes]:
    """Each number's bits, every nan as one (which nan two nans give is the hardware's choice of
    operand, and numpy's compiled loops may take them in the other order).

    >>> bits([0.0, -0.0]) == bits([0.0, 0.0]), bits([float("nan")]) == bits([-float("nan")])
    (False, True)
    """
    return [b"nan" if math.isnan(x) else struct.pack("d", x) for x in xs]


def raw_bits(xs: object) -> list[int]:
    """Each number's 64 bits as an integer, nans' payloads and signs included.

    >>> raw_bits([1.0, -0.0])
    [4607182418800017408, -9223372036854775808]
    """
    return np.array(xs, dtype=np.float64).view(np.int64).tolist()  # type: ignore[no-any-return]
