"""The two models ``check_engine`` trains on a learner's ``Value`` class, written here with
nothing but its operators and methods, so that the same code runs on any micrograd-style class:

* the lecture's MLP (3 inputs, two hidden layers of 4, one output; tanh, or ReLU where there is
  no tanh yet) on the lecture's four samples: its loss, every parameter's gradient, and the loss
  after one step of gradient descent;
* microgpt (karpathy, 2026) written from the facts of the model: one layer, 16 embeddings, 4
  heads, 27 tokens, weights from N(0, 0.08); its loss on one name and every weight's gradient.

Only ``+`` and ``*`` with a Value on the left, ``**`` (rmsnorm, softmax), ``exp``, ``log``,
``relu`` and ``tanh`` are used: a class without ``-``, ``/`` or the reflected operators runs.

>>> from micrograd.engine import Value
>>> loss, grads, after = mlp_step(Value, "tanh")
>>> len(grads), after < loss
(41, True)
"""

from __future__ import annotations

import itertools
import random
from typing import Any

# The lecture's four samples and their targets.
XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]
MLP_SIZES = [3, 4, 4, 1]
LEARNING_RATE = 0.05

# microgpt's sizes, and the name its forward and backward run on.
N_EMBD, N_HEAD, BLOCK_SIZE, VOCAB = 16, 4, 16, "abcdefghijklmnopqrstuvwxyz"
BOS = len(VOCAB)
NAME = "emma"
# microgpt's weights, in the order they are drawn: (rows, columns)
GPT_SHAPES = {"wte": (BOS + 1, N_EMBD), "wpe": (BLOCK_SIZE, N_EMBD), "lm_head": (BOS + 1, N_EMBD)}
GPT_SHAPES.update({f"layer0.attn_{w}": (N_EMBD, N_EMBD) for w in ("wq", "wk", "wv", "wo")})
GPT_SHAPES.update({"layer0.mlp_fc1": (4 * N_EMBD, N_EMBD), "layer0.mlp_fc2": (N_EMBD, 4 * N_EMBD)})
GPT_WEIGHTS = sum(rows * cols for rows, cols in GPT_SHAPES.values())  # 4,192
MLP_PARAMS = sum((n_in + 1) * n_out for n_in, n_out in itertools.pairwise(MLP_SIZES))  # 41
MLP_OPS = ["__add__", "__mul__"]
GPT_OPS = ["__add__", "__mul__", "__pow__", "exp", "log", "relu"]


def total(terms: list[Any]) -> Any:
    """The sum, from the first term (``sum`` would start from 0 and need ``__radd__``)."""
    acc = terms[0]
    for term in terms[1:]:
        acc = acc + term
    return acc


def mlp_step(cls: type, nonlinearity: str) -> tuple[float, list[tuple[str, Any]], float]:
    """The MLP's loss, each parameter's (name, grad), and the loss after one gradient step."""
    rng = random.Random(0)
    layers, params = [], []
    for li, (nin, nout) in enumerate(itertools.pairwise(MLP_SIZES)):
        layer = []
        for ni in range(nout):
            w, b = [cls(rng.uniform(-1, 1)) for _ in range(nin)], cls(rng.uniform(-1, 1))
            params += [(f"layer {li} neuron {ni} w[{i}]", wi) for i, wi in enumerate(w)]
            params.append((f"layer {li} neuron {ni} b", b))
            layer.append((w, b))
        layers.append(layer)

    def loss_of() -> Any:
        squares = []
        for x, y in zip(XS, YS):
            h: list[Any] = list(x)
            for li, layer in enumerate(layers):
                acts = [total([b, *(wi * hi for wi, hi in zip(w, h))]) for w, b in layer]
                last = li == len(layers) - 1  # the output neuron is linear
                h = acts if last else [getattr(a, nonlinearity)() for a in acts]
            d = h[0] + (-y)
            squares.append(d * d)
        return total(squares)

    loss = loss_of()
    loss.backward()
    grads = [(name, p.grad) for name, p in params]
    for _, p in params:
        p.data += -LEARNING_RATE * p.grad
    return loss.data, grads, loss_of().data


def gpt_weights(cls: type) -> dict[str, list[list[Any]]]:
    """microgpt's weights, drawn in its order from N(0, 0.08) with seed 42."""
    rng = random.Random(42)
    return {
        k: [[cls(rng.gauss(0, 0.08)) for _ in range(cols)] for _ in range(rows)]
        for k, (rows, cols) in GPT_SHAPES.items()
    }


def linear(x: list[Any], w: list[list[Any]]) -> list[Any]:
    return [total([wi * xi for wi, xi in zip(row, x)]) for row in w]


def softmax(logits: list[Any]) -> list[Any]:
    top = max(v.data for v in logits)  # subtracted first, so that exp cannot overflow
    exps = [(v + (-top)).exp() for v in logits]
    inverse = total(exps) ** -1
    return [e * inverse for e in exps]


def rmsnorm(x: list[Any]) -> list[Any]:
    scale = (total([xi * xi for xi in x]) * (1.0 / len(x)) + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def attention(q: list[Any], keys: list[list[Any]], values: list[list[Any]]) -> list[Any]:
    """Causal multi-head attention of one position over the cached keys and values."""
    size = N_EMBD // N_HEAD
    out: list[Any] = []
    for h in range(0, N_EMBD, size):
        logits = [total([q[h + j] * k[h + j] for j in range(size)]) * (1.0 / size**0.5) for k in keys]
        weights = softmax(logits)
        out += [total([weights[t] * values[t][h + j] for t in range(len(keys))]) for j in range(size)]
    return out


def gpt_loss(weights: dict[str, list[list[Any]]], tokens: list[int]) -> Any:
    """microgpt's loss on one document: the mean over positions of -log softmax(logits)[next]."""
    keys: list[list[Any]] = []
    values: list[list[Any]] = []
    losses = []
    n = min(BLOCK_SIZE, len(tokens) - 1)
    for pos in range(n):
        x = rmsnorm([t + p for t, p in zip(weights["wte"][tokens[pos]], weights["wpe"][pos])])
        xn = rmsnorm(x)
        keys.append(linear(xn, weights["layer0.attn_wk"]))
        values.append(linear(xn, weights["layer0.attn_wv"]))
        q = linear(xn, weights["layer0.attn_wq"])
        x = [a + b for a, b in zip(linear(attention(q, keys, values), weights["layer0.attn_wo"]), x)]
        hidden = [h.relu() for h in linear(rmsnorm(x), weights["layer0.mlp_fc1"])]
        x = [a + b for a, b in zip(linear(hidden, weights["layer0.mlp_fc2"]), x)]
        probs = softmax(linear(x, weights["lm_head"]))
        losses.append(probs[tokens[pos + 1]].log() * -1.0)
    return total(losses) * (1.0 / n)


def gpt_tokens(name: str = NAME) -> list[int]:
    return [BOS, *(VOCAB.index(c) for c in name), BOS]


def gpt_grads(weights: dict[str, list[list[Any]]]) -> list[tuple[str, Any]]:
    return [
        (f"{k}[{i}][{j}]", w.grad)
        for k, rows in weights.items()
        for i, row in enumerate(rows)
        for j, w in enumerate(row)
    ]
