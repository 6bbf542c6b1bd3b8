"""The pieces of a small GPT, each a ``Module`` with PyTorch's name: ``Embedding``, ``Linear``,
``RMSNorm``, ``CausalSelfAttention`` (with a ``KVCache``) and the ``MLP`` block; ``softmax``.

Vectors are lists of Values and a weight matrix a list of rows (out x in), as in
karpathy's microgpt.  Each output of ``Linear`` is one ``micrograd.ops.Dot`` node
(``w . x``, added left to right: the floats of the chain ``0 + w0*x0 + w1*x1 +
...``), so a layer of n outputs is n nodes where the chain makes 2n per output.

>>> import random
>>> lin = Linear(3, 2, bias=False, std=0.08, rng=random.Random(0))
>>> y = lin([1.0, 2.0, 3.0])
>>> len(y), y[0].op
(2, 'dot')
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Sequence

import micrograd
from micrograd import Value
from micrograd.ops import DetachedMax, Pick, weighted_sum
from micrograd.scopes import scope

from .module import Module

Vector = list[Value]
Matrix = list[list[Value]]
Operand = Value | float


def normal_matrix(rows: int, cols: int, std: float, rng: random.Random) -> Matrix:
    """A rows x cols matrix of Values drawn from N(0, std), row by row (microgpt's initialisation)."""
    return [[Value(rng.gauss(0.0, std)) for _ in range(cols)] for _ in range(rows)]


def check_size(what: str, n: object, least: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < least:
        raise ValueError(f"{what} must be an int >= {least}, got {n!r}")
    return int(n)


def check_matrix(name: str, matrix: object, rows: int | None = None, cols: int | None = None) -> Matrix:
    """``matrix`` (a list of rows of Values or numbers) as a Matrix of Values, the very Values kept
    (another engine's Values, such as microgpt's own class, give their numbers); a clear error
    naming ``name`` and the sizes when it is not rows x cols."""
    if (
        not isinstance(matrix, (list, tuple))
        or not matrix
        or not all(isinstance(r, (list, tuple)) for r in matrix)
    ):
        raise ValueError(f"{name} must be a non-empty list of rows, got {type(matrix).__name__}")
    widths = {len(r) for r in matrix}
    if len(widths) != 1 or 0 in widths:
        raise ValueError(f"{name} has rows of different or zero lengths: {sorted(widths)}")
    (width,) = widths
    if (rows is not None and len(matrix) != rows) or (cols is not None and width != cols):
        raise ValueError(
            f"{name} is {len(matrix)} x {width}, expected {rows if rows is not None else len(matrix)} x "
            f"{cols if cols is not None else width}"
        )
    out: Matrix = []
    for i, row in enumerate(matrix):
        out.append([])
        for j, w in enumerate(row):
            if isinstance(w, Value):
                out[-1].append(w)  # shared, not copied: training either model trains both
            elif isinstance(w, numbers.Real) and not isinstance(w, bool) and math.isfinite(w):
                out[-1].append(Value(float(w)))
            elif isinstance(getattr(w, "data", None), float) and math.isfinite(w.data):
                out[-1].append(Value(w.data))  # another engine's Value (microgpt's own): its number
            else:
                raise ValueError(f"{name}[{i}][{j}] must be a Value or a finite number, got {w!r}")
    return out


class Embedding(Module):
    """A table of ``num_embeddings`` rows of ``embedding_dim``: ``emb(i)`` is row ``i``.

    ``i`` is an int, or a Value holding one (a token id that ``micrograd.compile``
    traces): then each entry is a ``Pick`` node, and the gradient reaches the chosen
    row only.

    >>> emb = Embedding(3, 2, rng=random.Random(0))
    >>> emb(1) == emb.weight[1]
    True
    >>> [v.op for v in emb(Value(1.0))]
    ['pick', 'pick']
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        std: float = 0.08,
        rng: random.Random | None = None,
        weight: Matrix | None = None,
    ) -> None:
        self.num_embeddings = check_size("num_embeddings", num_embeddings)
        self.embedding_dim = check_size("embedding_dim", embedding_dim)
        if weight is None:
            weight = normal_matrix(num_embeddings, embedding_dim, std, rng or random.Random())
        self.weight = check_matrix("weight", weight, num_embeddings, embedding_dim)

    def __call__(self, index: int | Value) -> Vector:
        if isinstance(index, Value):
            return [Pick.apply(index, *[row[j] for row in self.weight]) for j in range(self.embedding_dim)]
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise TypeError(f"an embedding index is an int or a Value, got {type(index).__name__}: {index!r}")
        if not 0 <= index < self.num_embeddings:
            raise IndexError(f"index {index} is out of range for an Embedding of {self.num_embeddings} rows")
        return list(self.weight[int(index)])


class Linear(Module):
    """``y = W x (+ b)``, each output one ``Dot`` node; ``weight`` is out_features rows of
    in_features.  Initialised from N(0, ``std``) when given (microgpt's 0.08), else as
    PyTorch does, uniform in +-1/sqrt(in_features)."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        std: float | None = None,
        rng: random.Random | None = None,
        weight: Matrix | None = None,
    ) -> None:
        self.in_features = check_size("in_features", in_features)
        self.out_features = check_size("out_features", out_features)
        rng = rng or random.Random()
        if weight is None:
            if std is None:
                bound = 1.0 / math.sqrt(in_features)
                weight = [
                    [Value(rng.uniform(-bound, bound)) for _ in range(in_features)]
                    for _ in range(out_features)
                ]
            else:
                weight = normal_matrix(out_features, in_features, std, rng)
        self.weight = check_matrix("weight", weight, out_features, in_features)
        if bias:
            bound = 1.0 / math.sqrt(in_features)
            self.bias: list[Value] | None = [
                Value(0.0 if std is not None else rng.uniform(-bound, bound)) for _ in range(out_features)
            ]
        else:
            self.bias = None

    def __call__(self, x: Sequence[Operand]) -> Vector:
        if len(x) != self.in_features:
            raise ValueError(
                f"Linear({self.in_features}, {self.out_features}) got an input of {len(x)} entries"
            )
        if self.bias is None:
            return [weighted_sum(row, x) for row in self.weight]
        return [weighted_sum(row, x, start=b) for row, b in zip(self.weight, self.bias)]


class RMSNorm(Module):
    """``x / sqrt(mean(x**2) + eps)`` (microgpt's rmsnorm: no weight, eps 1e-5); with
    ``elementwise_affine=True`` a learned weight per entry, starting at 1, as PyTorch's."""

    def __init__(self, normalized_shape: int, eps: float = 1e-5, elementwise_affine: bool = False) -> None:
        self.normalized_shape = check_size("normalized_shape", normalized_shape)
        if not isinstance(eps, numbers.Real) or not eps > 0:
            raise ValueError(f"eps must be a number > 0, got {eps!r}")
        self.eps: float = float(eps)
        self.weight: list[Value] | None = (
            [Value(1.0) for _ in range(normalized_shape)] if elementwise_affine else None
        )

    def __call__(self, x: Sequence[Value]) -> Vector:
        if len(x) != self.normalized_shape:
            raise ValueError(f"RMSNorm({self.normalized_shape}) got a vector of {len(x)} entries")
        mean_square = weighted_sum(x, x) / len(x)
        scale = (mean_square + self.eps) ** -0.5
        if self.weight is None:
            return [xi * scale for xi in x]
        return [xi * scale * w for xi, w in zip(x, self.weight)]


def softmax(logits: Sequence[Value]) -> Vector:
    """exp(x_i - max) / sum_j exp(x_j - max), the max detached (``DetachedMax``: no gradient
    through it): it only keeps exp from overflowing and cancels out of the result."""
    top = DetachedMax.apply(*logits)
    exps = [(v - top).exp() for v in logits]
    total = micrograd.sum(exps)
    return [e / total for e in exps]


class KVCache:
    """The keys and values of the positions seen so far, per layer: causal attention reads
    them, so position t attends to 0..t (and generation does not recompute them).
    ``len(cache)`` is the number of positions seen (the model counts them)."""

    def __init__(self, n_layer: int, record: bool = False) -> None:
        self.keys: list[list[Vector]] = [[] for _ in range(n_layer)]
        self.values: list[list[Vector]] = [[] for _ in range(n_layer)]
        self.positions = 0
        # with ``record``: per layer, per position, per head, the attention weights over 0..t
        self.weights: list[list[list[list[float]]]] | None = [[] for _ in range(n_layer)] if record else None

    def __len__(self) -> int:
        return self.positions


class CausalSelfAttention(Module):
    """Multi-head self-attention over the positions so far (``cache``), as microgpt: queries,
    keys and values by ``wq``, ``wk``, ``wv`` (no bias), softmax of ``q . k / sqrt(head_dim)``
    per head, the heads' outputs joined and mixed by ``wo``."""

    def __init__(self, n_embd: int, n_head: int, std: float = 0.08, rng: random.Random | None = None) -> None:
        self.n_embd = check_size("n_embd", n_embd)
        self.n_head = check_size("n_head", n_head)
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be divisible by n_head ({n_head})")
        rng = rng or random.Random()
        self.wq, self.wk, self.wv, self.wo = (
            Linear(n_embd, n_embd, bias=False, std=std, rng=rng) for _ in range(4)
        )

    def __call__(self, x: Sequence[Value], cache: KVCache, layer: int = 0) -> Vector:
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        keys, values = cache.keys[layer], cache.values[layer]
        keys.append(k)
        values.append(v)
        d = self.n_embd // self.n_head
        scale = math.sqrt(d)
        joined: Vector = []
        heads: list[list[float]] = []
        for h in range(0, self.n_embd, d):
            with scope(f"head {h // d}", [q[h : h + d]], detail=f"softmax(q . k / sqrt({d})) . v"):
                scores = softmax([weighted_sum(q[h : h + d], kt[h : h + d]) / scale for kt in keys])
                joined += [weighted_sum(scores, [vt[j] for vt in values]) for j in range(h, h + d)]
            heads.append([s.data for s in scores])
        if cache.weights is not None:
            cache.weights[layer].append(heads)
        return self.wo(joined)


class MLPBlock(Module):
    """``fc2(relu(fc1(x)))``, fc1 widening n_embd to 4 n_embd (microgpt's, no biases)."""

    def __init__(self, n_embd: int, std: float = 0.08, rng: random.Random | None = None) -> None:
        rng = rng or random.Random()
        self.fc1 = Linear(n_embd, 4 * n_embd, bias=False, std=std, rng=rng)
        self.fc2 = Linear(4 * n_embd, n_embd, bias=False, std=std, rng=rng)

    def __call__(self, x: Sequence[Value]) -> Vector:
        return self.fc2([h.relu() for h in self.fc1(x)])
