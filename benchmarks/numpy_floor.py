"""The floor: micrograd's demo training step, vectorised by hand with numpy.

Same data, same initial weights (drawn as micrograd 0.1.0's MLP draws them),
same loss, same derivative conventions (relu'(0) = 0) and the same SGD
schedule as ``workloads.train_step``, so its loss trajectory matches the
engines' up to float summation order.  Runs inside a worker process.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from moons import initial_weights, learning_rate, make_moons

ALPHA = 1e-4  # the demo's L2 weight


def train_step(n_points: int, steps: int) -> dict[str, Any]:
    """``steps`` full-batch SGD steps (forward, backward, update), each timed."""
    import numpy as np

    points, labels = make_moons(n_points)
    x = np.array(points, dtype=np.float64)
    y = np.array(labels, dtype=np.float64)
    params = []
    for rows, biases in initial_weights():
        params += [np.array(rows, dtype=np.float64), np.array(biases, dtype=np.float64)]
    w1, b1, w2, b2, w3, b3 = params
    inv_n = 1.0 / n_points
    samples: list[float] = []
    losses: list[float] = []
    for k in range(steps):
        t0 = perf_counter()
        # forward: two relu layers and a linear score, then the SVM loss
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0.0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0.0)
        s = (h2 @ w3.T + b3)[:, 0]
        margin = 1.0 - y * s
        loss = np.maximum(margin, 0.0).sum() * inv_n + ALPHA * sum(float((p * p).sum()) for p in params)
        # backward: relu passes the gradient where its output is > 0
        ds = np.where(margin > 0.0, -y, 0.0) * inv_n
        dw3 = ds[None, :] @ h2
        db3 = ds.sum(keepdims=True)
        dz2 = np.outer(ds, w3[0]) * (z2 > 0.0)
        dw2 = dz2.T @ h1
        db2 = dz2.sum(axis=0)
        dz1 = (dz2 @ w2) * (z1 > 0.0)
        dw1 = dz1.T @ x
        db1 = dz1.sum(axis=0)
        lr = learning_rate(k)
        for p, g in zip(params, (dw1, db1, dw2, db2, dw3, db3)):
            p -= lr * (g + 2 * ALPHA * p)  # in place: w1..b3 are these arrays
        samples.append(perf_counter() - t0)
        losses.append(float(loss))
    return {"samples": samples, "loss": losses}
