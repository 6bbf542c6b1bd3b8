"""The benchmark's data and initial weights, in pure Python, identical in every worker.

Runs inside the worker processes (imported as a top-level module from this
folder), so it imports neither engine nor numpy: both engines and the numpy
floor see exactly the same floats.
"""

from __future__ import annotations

import itertools
import math
import random

DATA_SEED = 0
MODEL_SEED = 1337  # micrograd's demo notebook: random.seed(1337) before MLP(2, [16, 16, 1])
LAYER_SIZES = (2, 16, 16, 1)


def make_moons(
    n_points: int, noise: float = 0.1, seed: int = DATA_SEED
) -> tuple[list[list[float]], list[int]]:
    """Two interleaving half circles, as sklearn's ``make_moons``, with labels -1 / +1.

    The outer moon gets ceil(n/2) points, the inner one the rest; Gaussian noise
    comes from a private ``random.Random(seed)``, so the global random state
    (which seeds the MLP) is left alone.

    >>> points, labels = make_moons(4)
    >>> len(points), labels
    (4, [-1, -1, 1, 1])
    """
    if not isinstance(n_points, int) or n_points < 2:
        raise ValueError(f"make_moons needs an int n_points >= 2, got {n_points!r}")
    rng = random.Random(seed)
    n_outer = (n_points + 1) // 2
    n_inner = n_points - n_outer
    points: list[list[float]] = []
    labels: list[int] = []
    for i in range(n_outer):
        t = math.pi * i / (n_outer - 1) if n_outer > 1 else 0.0
        points.append([math.cos(t) + rng.gauss(0.0, noise), math.sin(t) + rng.gauss(0.0, noise)])
        labels.append(-1)  # label 0, mapped by y*2-1 as in the demo
    for i in range(n_inner):
        t = math.pi * i / (n_inner - 1) if n_inner > 1 else 0.0
        points.append([1.0 - math.cos(t) + rng.gauss(0.0, noise), 0.5 - math.sin(t) + rng.gauss(0.0, noise)])
        labels.append(1)
    return points, labels


def initial_weights() -> list[tuple[list[list[float]], list[float]]]:
    """The weights micrograd 0.1.0's ``MLP(2, [16, 16, 1])`` draws after ``random.seed(1337)``.

    Per layer, a (weights, biases) pair: one row of ``nin`` draws of
    ``random.uniform(-1, 1)`` per neuron, in neuron order, and zero biases.
    Used by the numpy floor, so that it trains the very same model.
    """
    random.seed(MODEL_SEED)
    layers = []
    for nin, nout in itertools.pairwise(LAYER_SIZES):
        rows = [[random.uniform(-1, 1) for _ in range(nin)] for _ in range(nout)]
        layers.append((rows, [0.0] * nout))
    return layers


def learning_rate(step: int) -> float:
    """The demo's schedule: 1.0 at step 0, decaying linearly by 0.9 per 100 steps."""
    return 1.0 - 0.9 * step / 100
