"""The floor: the benchmark's training, vectorised by hand with numpy.

``train_step``: micrograd's demo step, with the same data, initial weights
(drawn as micrograd 0.1.0's MLP draws them), loss, derivative conventions
(relu'(0) = 0) and SGD schedule as ``workloads.train_step``.  ``digits_epoch``:
issue 15's digits training, the same model, loss, Adam and batches as
``workloads.digits_epoch``.  Their loss trajectories match the engines' up to
float summation order.  Runs inside a worker process.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import digits
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


def digits_epoch(epochs: int, limit: int | None = None) -> dict[str, Any]:
    """``workloads.digits_epoch`` in plain numpy: the MLP's forward and backward by hand (relu,
    then linear logits; softmax cross-entropy, averaged over the batch) and ``nn.optim.Adam``'s
    update (PyTorch's formulas, default betas and eps), over whole arrays; each epoch timed."""
    import numpy as np

    try:
        images, onehot = digits.training_set(limit)
    except ImportError:
        return {"samples": [], "status": digits.NO_SKLEARN}
    (w1, b1), (w2, b2) = [(np.array(rows), np.array(biases)) for rows, biases in digits.initial_weights()]
    params = [w1, b1, w2, b2]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    samples: list[float] = []
    losses: list[float] = []
    t = 0
    for epoch in range(epochs):
        t0 = perf_counter()
        for idx in digits.epoch_batches(len(images), epoch):
            x, target = images[idx], onehot[idx]
            # forward: relu layer, logits, log-softmax (the largest logit subtracted), cross-entropy
            z1 = x @ w1.T + b1
            h = np.maximum(z1, 0.0)
            logits = h @ w2.T + b2
            shifted = logits - logits.max(axis=1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            losses.append(float(-(target * logp).sum(axis=1).mean()))
            # backward: d(loss)/d(logits) = (softmax - onehot) / batch; relu passes where z1 > 0
            dlogits = (np.exp(logp) - target) / len(idx)
            dz1 = (dlogits @ w2) * (z1 > 0.0)
            grads = [dz1.T @ x, dz1.sum(axis=0), dlogits.T @ h, dlogits.sum(axis=0)]
            # Adam, as nn.optim.Adam: m = lerp(m, g, 1 - beta1), bias corrections, eps outside the sqrt
            t += 1
            step_size = digits.LR / (1 - beta1**t)
            bias_correction2_sqrt = (1 - beta2**t) ** 0.5
            for p, g, mp, vp in zip(params, grads, m, v):
                mp += (1 - beta1) * (g - mp)
                vp *= beta2
                vp += (1 - beta2) * g * g
                p -= step_size * mp / (np.sqrt(vp) / bias_correction2_sqrt + eps)  # in place
        samples.append(perf_counter() - t0)
    return {"samples": samples, "loss": losses}
