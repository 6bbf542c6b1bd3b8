"""Accuracy, for binary scores and for multi-class logits."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from micrograd import Value

from .losses import signed_labels

Scalar = Value | float | int


def _data(x: object) -> float:
    return x.data if isinstance(x, Value) else float(x)  # type: ignore[arg-type]


def accuracy(outputs: Sequence[Scalar] | Sequence[Sequence[Scalar]], labels: Sequence[int]) -> float:
    """The fraction of samples classified correctly.

    Binary: one score per sample, predicted positive when the score is > 0;
    labels all in {-1, +1} or all in {0, 1}.  Multi-class: one list of logits
    per sample, predicted class the argmax (the first on ties); labels are
    class indices.

    >>> accuracy([0.3, -2.0, 1.0], [1, 0, 0])
    0.6666666666666666
    >>> accuracy([[0.1, 0.9], [2.0, -1.0]], [1, 1])
    0.5
    """
    outs = list(outputs)
    ys = list(labels)
    if not outs:
        raise ValueError("accuracy of no samples: outputs is empty")
    if len(outs) != len(ys):
        raise ValueError(f"accuracy: {len(outs)} outputs but {len(ys)} labels")
    if all(isinstance(o, Sequence) and not isinstance(o, str) for o in outs):
        correct = 0
        for i, (o, y) in enumerate(zip(outs, ys)):
            row = [_data(z) for z in o]  # type: ignore[union-attr]
            if isinstance(y, bool) or not isinstance(y, numbers.Integral) or not 0 <= y < len(row):
                raise ValueError(f"labels[{i}] must be a class index in range({len(row)}), got {y!r}")
            correct += max(range(len(row)), key=row.__getitem__) == int(y)
        return correct / len(outs)
    signs = signed_labels(ys)
    return sum((_data(o) > 0) == (s > 0) for o, s in zip(outs, signs)) / len(outs)
