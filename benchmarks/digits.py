"""The digits benchmark's data, initial weights and batches, identical in every worker.

scikit-learn's 8x8 handwritten digits (pixels scaled to [0, 1]), 80% of them
for training; an ``MLP(64, [32, 10])``'s initial weights drawn from a fixed
seed; and each epoch's shuffled mini-batches of 64.  Imported by the worker
processes (``workloads.digits_epoch`` and ``numpy_floor.digits_epoch``), it
imports no engine: this project's batched replay and the plain numpy version
train the very same model on the very same batches.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

DATA_SEED = 0
MODEL_SEED = 15
LAYER_SIZES = (64, 32, 10)  # MLP(64, [32, 10]): relu, then ten linear outputs (the logits)
BATCH = 64
LR = 1e-2  # Adam, as demos/digits.py trains
NO_SKLEARN = "scikit-learn is not installed (pip install scikit-learn): no digits"


def training_set(limit: int | None = None) -> tuple[Any, Any]:
    """``(images, onehot)``: float64 arrays of shape (n, 64) and (n, 10), the training 80% of the
    1,797 digits in a fixed shuffled order (the first ``limit`` of them if given).  ImportError
    without scikit-learn."""
    import numpy as np
    from sklearn.datasets import load_digits

    bunch = load_digits()
    order = list(range(len(bunch.target)))
    random.Random(DATA_SEED).shuffle(order)
    train = order[: len(order) * 4 // 5][:limit]
    images = np.asarray(bunch.data, dtype=np.float64)[train] / 16.0
    onehot = np.eye(LAYER_SIZES[-1])[np.asarray(bunch.target)[train]]
    return images, onehot


def initial_weights() -> list[tuple[list[list[float]], list[float]]]:
    """Per layer, ``(rows, biases)``: one row of ``nin`` draws of ``uniform(-1, 1) / sqrt(nin)``
    per neuron, in neuron order, and zero biases."""
    rng = random.Random(MODEL_SEED)
    layers = []
    for nin, nout in itertools.pairwise(LAYER_SIZES):
        rows = [[rng.uniform(-1, 1) / nin**0.5 for _ in range(nin)] for _ in range(nout)]
        layers.append((rows, [0.0] * nout))
    return layers


def epoch_batches(n: int, epoch: int, batch: int = BATCH) -> list[list[int]]:
    """The sample indices of each mini-batch of epoch ``epoch`` (a new shuffle per epoch; the last
    batch is shorter when ``batch`` does not divide ``n``)."""
    order = list(range(n))
    random.Random(DATA_SEED + 1 + epoch).shuffle(order)
    return [order[i : i + batch] for i in range(0, n, batch)]
