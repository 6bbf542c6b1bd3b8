"""The microgpt floor: ``nn.GPT``'s training step vectorised by hand with numpy.

The same model (microgpt's: embeddings, rmsnorm, causal multi-head attention and a
ReLU MLP per layer, ``lm_head``), the same initialisation (N(0, 0.08) drawn with
``random.Random(42)`` in microgpt's order), the same names in the same order and
the same Adam as ``gpt_workloads.gpt_eager``; forward and backward written by hand
over whole arrays.  ``loss_and_grads`` takes a batch of documents (padded to the
longest, positions past a document's end weighted 0) and gives each document's
loss and the sum of their gradients: what a loop of ``model.loss(doc).backward()``
leaves in ``.grad``, up to float rounding (matrix products add in BLAS's order; the
tests check 1e-12 against ``nn.GPT``).  Runs inside a worker process.

``ordered=True`` (``one_name_ordered``, ``sixteen_names_ordered``) is the same step
with every matrix product, forward and backward (the attention's and the weight
gradients' sums over positions too), made by ``ordered_matmul``: each entry the sum
of its products added first to last, as the eager engine adds a dot product, with
no BLAS and no pairwise summation.  It is a cost floor for the ordered products
that issue 37's contract (bit for bit the eager engine's numbers) asks for, NOT a
bit-identical replica of the eager engine: everything else (the softmax's and
rmsnorm's sums, ``np.exp``, ``np.log``, the sum over the batch) is numpy's as in
the BLAS floor, pairwise sums included.

>>> import random
>>> w = init_weights(vocab=5, block_size=4, n_layer=1, n_embd=4, rng=random.Random(0))
>>> losses, grads = loss_and_grads(w, [[4, 1, 2, 4], [4, 0, 4]], n_head=2)
>>> len(losses), sorted(grads) == sorted(w), grads["wte"].shape
(2, True, (5, 4))
>>> ordered_losses, _ = loss_and_grads(w, [[4, 1, 2, 4], [4, 0, 4]], n_head=2, ordered=True)
>>> max(abs(a - b) for a, b in zip(losses, ordered_losses)) < 1e-12
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from time import perf_counter
from typing import Any

SEED = 42
N_LAYER, N_EMBD, BLOCK_SIZE, N_HEAD = 1, 16, 16, 4
LR, BETA1, BETA2, EPS = 0.01, 0.85, 0.99, 1e-8
RMS_EPS = 1e-5
LAYER_KEYS = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")


def init_weights(
    vocab: int, block_size: int, n_layer: int, n_embd: int, rng: random.Random
) -> dict[str, Any]:
    """microgpt's ``state_dict`` as numpy arrays, drawn as microgpt draws it: ``wte``, ``wpe``,
    ``lm_head``, then each layer's ``attn_wq`` .. ``mlp_fc2``, row by row, N(0, 0.08)."""
    import numpy as np

    def matrix(rows: int, cols: int) -> Any:
        return np.array([[rng.gauss(0.0, 0.08) for _ in range(cols)] for _ in range(rows)])

    w = {"wte": matrix(vocab, n_embd), "wpe": matrix(block_size, n_embd), "lm_head": matrix(vocab, n_embd)}
    shapes = [(n_embd, n_embd)] * 4 + [(4 * n_embd, n_embd), (n_embd, 4 * n_embd)]
    for i in range(n_layer):
        for key, (rows, cols) in zip(LAYER_KEYS, shapes):
            w[f"layer{i}.{key}"] = matrix(rows, cols)
    return w


def ordered_matmul(a: Any, b: Any) -> Any:
    """``a @ b`` for arrays of at least 2 dimensions (the batch dimensions broadcast as ``@``
    broadcasts them), each entry ``sum_j a[..., i, j] * b[..., j, k]`` added in order, j = 0
    first: the products are laid out with the contracted axis first, C-contiguous, and added
    along it, one whole slice at a time (numpy adds along an axis that is not the innermost
    in order; only along the innermost does it sum pairwise).  Where the result has one entry,
    the contracted axis would be the innermost: ``np.add.accumulate``, in order by definition.

    >>> import numpy as np
    >>> ordered_matmul(np.array([[1.0, 1e16, -1e16]]), np.ones((3, 2)))  # (1 + 1e16) - 1e16
    array([[0., 0.]])
    """
    import numpy as np

    a, b = np.asarray(a), np.asarray(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"ordered_matmul takes arrays of 2 or more dimensions, got {a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"ordered_matmul: {a.shape} @ {b.shape}: the contracted sizes differ")
    ndim = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (ndim - a.ndim) + a.shape)  # the batch dimensions aligned from the right
    b = b.reshape((1,) * (ndim - b.ndim) + b.shape)
    # (J, ..., n, 1) * (J, ..., 1, m): every product, the contracted axis J first, C order
    products = np.multiply(np.moveaxis(a, -1, 0)[..., None], np.moveaxis(b, -2, 0)[..., None, :], order="C")
    if not len(products):
        return products.sum(axis=0)  # (no products: zeros, as ``@`` gives)
    if math.prod(products.shape[1:]) == 1:
        return np.add.accumulate(products, axis=0)[-1]
    # From -0.0, as a chain of + from the first term (the engine's order): numpy's own start, +0.0,
    # would turn a sum of -0.0 terms into 0.0 (-0.0 + -0.0 is -0.0, 0.0 + -0.0 is 0.0).
    return np.add.reduce(products, axis=0, initial=-0.0)


def _rms(x: Any) -> Any:
    """rmsnorm's scale ``(mean(x**2) + eps) ** -0.5`` over the last axis, kept as an axis."""
    return ((x * x).sum(axis=-1, keepdims=True) / x.shape[-1] + RMS_EPS) ** -0.5


def _rms_back(x: Any, s: Any, dy: Any) -> Any:
    """d(loss)/dx for ``y = x * s``, ``s = _rms(x)``: ``s dy - x s**3 sum(dy x) / n``."""
    return s * dy - x * (s**3 * (dy * x).sum(axis=-1, keepdims=True) / x.shape[-1])


def loss_and_grads(
    w: dict[str, Any], docs: Sequence[Sequence[int]], n_head: int, ordered: bool = False
) -> tuple[list[float], dict[str, Any]]:
    """Each document's loss (the mean over its positions of ``-log softmax(logits)[next]``) and the
    gradients of the SUM of those losses, one array per weight, as a dict like ``w``.  Every matrix
    product is ``mm``: ``np.matmul`` (BLAS), or with ``ordered`` ``ordered_matmul`` (sums in order)."""
    import numpy as np

    mm = ordered_matmul if ordered else np.matmul

    n_layer = sum(1 for k in w if k.endswith(".attn_wq"))
    wte, wpe, lm_head = w["wte"], w["wpe"], w["lm_head"]
    B, C = len(docs), wte.shape[1]  # noqa: N806 - batch, channels, positions, heads, head size
    T = max(len(d) for d in docs) - 1  # noqa: N806
    H, D = n_head, C // n_head  # noqa: N806
    tok = np.zeros((B, T), dtype=np.intp)
    tgt = np.zeros((B, T), dtype=np.intp)
    weight = np.zeros((B, T))  # 1 / (the document's positions) where a position is in it, else 0
    for b, d in enumerate(docs):
        n = len(d) - 1
        tok[b, :n], tgt[b, :n], weight[b, :n] = d[:-1], d[1:], 1.0 / n
    causal = np.triu(np.ones((T, T), dtype=bool), 1)  # position t sees 0..t
    scale = math.sqrt(D)

    def heads(a: Any) -> Any:  # (B, T, C) -> (B, H, T, D)
        return a.reshape(B, T, H, D).transpose(0, 2, 1, 3)

    def joined(a: Any) -> Any:  # (B, H, T, D) -> (B, T, C)
        return a.transpose(0, 2, 1, 3).reshape(B, T, C)

    # ---- forward ----
    x0 = wte[tok] + wpe[:T]
    s0 = _rms(x0)
    x = x0 * s0
    saved = []
    for i in range(n_layer):
        wq, wk, wv, wo, fc1, fc2 = (w[f"layer{i}.{k}"] for k in LAYER_KEYS)
        x_in, s1 = x, _rms(x)
        h = x * s1
        q, k, v = heads(mm(h, wq.T)), heads(mm(h, wk.T)), heads(mm(h, wv.T))
        scores = mm(q, k.transpose(0, 1, 3, 2)) / scale
        scores[..., causal] = -np.inf
        att = np.exp(scores - scores.max(axis=-1, keepdims=True))
        att /= att.sum(axis=-1, keepdims=True)
        out = joined(mm(att, v))
        x = mm(out, wo.T) + x_in
        x_mid, s2 = x, _rms(x)
        h2 = x * s2
        pre = mm(h2, fc1.T)
        f = np.maximum(pre, 0.0)
        x = mm(f, fc2.T) + x_mid
        saved.append((x_in, s1, h, q, k, v, att, out, x_mid, s2, h2, pre, f))
    logits = mm(x, lm_head.T)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    total = exps.sum(axis=-1, keepdims=True)
    logp = shifted - np.log(total)
    picked = np.take_along_axis(logp, tgt[..., None], axis=-1)[..., 0]
    losses = (-(picked * weight)).sum(axis=1)

    # ---- backward: of the sum of the documents' losses ----
    dlogits = exps / total
    np.put_along_axis(dlogits, tgt[..., None], np.take_along_axis(dlogits, tgt[..., None], -1) - 1.0, -1)
    dlogits *= weight[..., None]
    grads: dict[str, Any] = {"lm_head": mm(dlogits.reshape(-1, dlogits.shape[-1]).T, x.reshape(-1, C))}
    dx = mm(dlogits, lm_head)
    for i in reversed(range(n_layer)):
        wq, wk, wv, wo, fc1, fc2 = (w[f"layer{i}.{k}"] for k in LAYER_KEYS)
        x_in, s1, h, q, k, v, att, out, x_mid, s2, h2, pre, f = saved[i]
        # the MLP: x = fc2 relu(fc1 rmsnorm(x_mid)) + x_mid
        grads[f"layer{i}.mlp_fc2"] = mm(dx.reshape(-1, C).T, f.reshape(-1, f.shape[-1]))
        dpre = mm(dx, fc2) * (pre > 0.0)
        grads[f"layer{i}.mlp_fc1"] = mm(dpre.reshape(-1, dpre.shape[-1]).T, h2.reshape(-1, C))
        dx = dx + _rms_back(x_mid, s2, mm(dpre, fc1))
        # attention: x = wo (softmax(q k / sqrt(D)) v, per head) + x_in
        grads[f"layer{i}.attn_wo"] = mm(dx.reshape(-1, C).T, out.reshape(-1, C))
        dout = heads(mm(dx, wo))
        datt = mm(dout, v.transpose(0, 1, 3, 2))
        dv = mm(att.transpose(0, 1, 3, 2), dout)
        dscores = att * (datt - (datt * att).sum(axis=-1, keepdims=True)) / scale
        dq, dk = joined(mm(dscores, k)), joined(mm(dscores.transpose(0, 1, 3, 2), q))
        dv = joined(dv)
        flat_h = h.reshape(-1, C)
        for key, d in (("attn_wq", dq), ("attn_wk", dk), ("attn_wv", dv)):
            grads[f"layer{i}.{key}"] = mm(d.reshape(-1, C).T, flat_h)
        dh = mm(dq, wq) + mm(dk, wk) + mm(dv, wv)
        dx = dx + _rms_back(x_in, s1, dh)
    dx0 = _rms_back(x0, s0, dx)
    dwte = np.zeros_like(wte)
    np.add.at(dwte, tok.ravel(), dx0.reshape(-1, C))  # (padded positions bring exact zeros)
    dwpe = np.zeros_like(wpe)
    dwpe[:T] = dx0.sum(axis=0)
    grads["wte"], grads["wpe"] = dwte, dwpe
    return losses.tolist(), grads


class Adam:
    """``nn.optim.Adam``'s update over whole arrays (torch's lerp for ``m``, eps outside the sqrt)."""

    def __init__(self, w: dict[str, Any], lr: float, betas: tuple[float, float], eps: float) -> None:
        import numpy as np

        self.w, self.lr, self.betas, self.eps, self.t = w, lr, betas, eps, 0
        self.m = {k: np.zeros_like(a) for k, a in w.items()}
        self.v = {k: np.zeros_like(a) for k, a in w.items()}

    def step(self, grads: dict[str, Any]) -> None:
        import numpy as np

        self.t += 1
        beta1, beta2 = self.betas
        step_size = self.lr / (1 - beta1**self.t)
        correction2 = math.sqrt(1 - beta2**self.t)
        for key, p in self.w.items():
            g, m, v = grads[key], self.m[key], self.v[key]
            m += (1 - beta1) * (g - m)
            v *= beta2
            v += (1 - beta2) * g * g
            p += -step_size * m / (np.sqrt(v) / correction2 + EPS)  # in place: the weights are these arrays


def _training() -> tuple[dict[str, Any], list[list[int]]]:
    """The weights at initialisation and the shuffled names as documents, as ``gpt_workloads``."""
    from gpt_workloads import shuffled_names

    names, chars = shuffled_names()
    bos = len(chars)
    ids = {c: i for i, c in enumerate(chars)}
    docs = [[bos, *(ids[c] for c in name), bos][: BLOCK_SIZE + 1] for name in names]
    return init_weights(len(chars) + 1, BLOCK_SIZE, N_LAYER, N_EMBD, random.Random(SEED)), docs


def train(steps: int, batch: int, shown: int, ordered: bool = False) -> dict[str, Any]:
    """``steps`` Adam steps of ``batch`` names each (name ``k * batch + j`` in the shuffled order),
    the learning rate decaying over ``steps`` as in microgpt; each step timed, the sample being the
    time per name; the mean loss of the first ``shown`` steps.  ``ordered``: the products added in
    order (``loss_and_grads``)."""
    w, docs = _training()
    opt = Adam(w, LR, (BETA1, BETA2), EPS)
    samples, losses = [], []
    for step in range(steps):
        t0 = perf_counter()
        at = step * batch
        chosen = [docs[(at + j) % len(docs)] for j in range(batch)]
        step_losses, grads = loss_and_grads(w, chosen, N_HEAD, ordered)
        opt.lr = LR * (1 - step / steps)
        opt.step(grads)
        samples.append((perf_counter() - t0) / batch)
        losses.append(sum(step_losses) / batch)
    if not all(math.isfinite(x) for x in losses):
        return {"samples": [], "status": "a loss was not finite"}
    return {"samples": samples, "loss": losses[:shown], "final_loss": losses[-1]}


def one_name(steps: int, compiled_steps: int, ordered: bool = False) -> dict[str, Any]:
    """The floor of ``gpt_workloads.gpt_eager``: one name a step, the ``compiled_steps`` steps
    (microgpt's 1,000) all timed; its first ``steps`` losses are the other rows' trajectory."""
    return train(compiled_steps, 1, steps, ordered)


def sixteen_names(steps: int, compiled_steps: int, ordered: bool = False) -> dict[str, Any]:
    """16 names a step (their gradients added), ``compiled_steps`` steps; the sample is per name."""
    result = train(compiled_steps, 16, steps, ordered)
    result["batch_loss"] = result.pop("loss", [])  # (not microgpt's one-name trajectory)
    return result


def one_name_ordered(steps: int, compiled_steps: int) -> dict[str, Any]:
    """``one_name`` with the matrix products added in order (``ordered_matmul``)."""
    return one_name(steps, compiled_steps, ordered=True)


def sixteen_names_ordered(steps: int, compiled_steps: int) -> dict[str, Any]:
    """``sixteen_names`` with the matrix products added in order (``ordered_matmul``)."""
    return sixteen_names(steps, compiled_steps, ordered=True)
