"""Loss functions: a list of model outputs and their targets in, one Value out.

Every loss is the mean over the samples (PyTorch's default reduction) and is
built from the engine's ops, so ``loss.backward()`` reaches the model.  The
logit-based losses are written in forms that neither overflow nor lose their
gradient at logits of +-1000.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Sequence
from typing import Any

import micrograd
from micrograd import Value
from micrograd.ops import Pick

Scalar = Value | float | int


def _as_list(x: Scalar | Sequence[Scalar], what: str, loss: str = "") -> list[Scalar]:
    # one number or Value, else any iterable of them (a list, a tuple, a NumPy array)
    if isinstance(x, (Value, numbers.Real)):
        return [x]
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise TypeError(f"{what} must be a number, a Value or a list of them, got {type(x).__name__}: {x!r}")
    items: list[Scalar] = list(x)  # type: ignore[arg-type]
    if not items:
        raise ValueError(f"{what} is empty")
    if loss:
        for i, item in enumerate(items):
            if not isinstance(item, (Value, numbers.Real)):
                raise TypeError(_not_scalar(loss, what, i, item))
    return items


def _not_scalar(loss: str, what: str, i: int, item: object) -> str:
    """The message for a list where a loss wants one number per sample."""
    got = f"{type(item).__name__}: {reprlib.repr(item)}"
    if not isinstance(item, (str, bytes)) and hasattr(item, "__len__"):
        got = f"a {type(item).__name__} of {len(item)} items"
        if loss in ("hinge", "binary_cross_entropy_with_logits"):
            hint = (
                f"; {loss} takes one score per sample, from a model with one output (last layer size 1). "
                "For a model with several outputs (one per class) use cross_entropy(outputs, classes)"
            )
        else:
            hint = (
                f"; {loss} compares one number per sample. For several outputs per sample, flatten both: "
                f"{loss}([o for out in outputs for o in out], [t for ts in targets for t in ts])"
            )
        return f"{loss}: {what}[{i}] is {got}, not a number or Value{hint}"
    return f"{loss}: {what}[{i}] must be a number or a Value, got {got}"


def _number(x: object, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{what} must be a number, got {type(x).__name__}: {x!r}")
    return float(x)


def _paired(preds: Sequence[object], targets: Sequence[object], what: str) -> None:
    if len(preds) != len(targets):
        raise ValueError(f"{what}: {len(preds)} predictions but {len(targets)} targets")


def _mean(terms: list[Value], name: str) -> Value:
    # micrograd's demo reduction, sum(losses) * (1.0 / n): the same floats as its loss,
    # with the additions as one n-ary node; labelled with the loss's name, so that explain,
    # draw_dot and explore call it that rather than #i (a label set later wins)
    out = micrograd.sum(terms) * (1.0 / len(terms))
    out.label = name
    return out


def mse(preds: Scalar | Sequence[Scalar], targets: Scalar | Sequence[Scalar]) -> Value:
    """Mean squared error, ``mean((pred - target) ** 2)``.

    >>> from micrograd import Value
    >>> mse([Value(1.0), Value(3.0)], [0.0, 1.0]).data
    2.5
    """
    ps = _as_list(preds, "preds", "mse")
    ts = _as_list(targets, "targets", "mse")
    _paired(ps, ts, "mse")
    terms = []
    for p, t in zip(ps, ts):
        d = p - t
        terms.append(d * d if isinstance(d, Value) else Value(d * d))
    return _mean(terms, "mse")


def signed_labels(labels: Sequence[object]) -> list[int]:
    """Binary labels as -1/+1: labels all in {-1, +1} or all in {0, 1} (0 means -1).

    >>> signed_labels([0, 1, 1]), signed_labels([-1, 1])
    ([-1, 1, 1], [-1, 1])
    """
    for i, y in enumerate(labels):
        if isinstance(y, Value):  # a label micrograd.compile traces: its convention cannot be seen
            raise TypeError(
                f"labels[{i}] is a Value ({y!r}); binary labels must be numbers, since 1 means the positive "
                "class in either convention. For a traced label in {-1, +1}, write the loss with it: "
                "(1 + -t * score).relu()"
            )
    values = [_number(y, f"labels[{i}]") for i, y in enumerate(labels)]
    seen = set(values)
    if seen <= {-1.0, 1.0}:
        return [int(v) for v in values]
    if seen <= {0.0, 1.0}:
        return [1 if v == 1.0 else -1 for v in values]
    raise ValueError(
        f"binary labels must be all in {{-1, +1}} or all in {{0, 1}}, got the values {sorted(seen)}"
    )


def hinge(scores: Scalar | Sequence[Scalar], labels: Sequence[object] | float | int) -> Value:
    """The SVM max-margin loss of micrograd's demo: ``mean(relu(1 - y * score))``.

    Labels are all in {-1, +1} or all in {0, 1} (0 is the negative class).
    The floats are exactly those of micrograd's demo loss.

    >>> from micrograd import Value
    >>> hinge([Value(2.0), Value(0.5)], [1, 1]).data
    0.25
    """
    ss = _as_list(scores, "scores", "hinge")
    ys = signed_labels(_as_list(labels, "labels"))  # type: ignore[arg-type]
    _paired(ss, ys, "hinge")
    terms = []
    for s, y in zip(ss, ys):
        margin = 1 + -y * s  # micrograd: (1 + -yi*scorei).relu()
        terms.append(margin.relu() if isinstance(margin, Value) else Value(max(margin, 0.0)))
    return _mean(terms, "hinge")


def binary_cross_entropy_with_logits(
    logits: Scalar | Sequence[Scalar], targets: Scalar | Sequence[Scalar]
) -> Value:
    """Mean of ``-[t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]``, from logits x.

    Targets are probabilities in [0, 1] (hard 0/1 labels or soft ones).  Each
    term is computed as ``softplus(x) - t x``, rewritten as
    ``(1 - t) x + softplus(-x)`` for x >= 0 so that the exponential never
    overflows: the loss is exact and the gradient ``sigmoid(x) - t`` finite at
    |x| = 1000, as in PyTorch's ``binary_cross_entropy_with_logits``.

    >>> from micrograd import Value
    >>> round(binary_cross_entropy_with_logits([Value(0.0)], [1]).data, 6)   # log 2
    0.693147
    >>> binary_cross_entropy_with_logits([Value(1000.0)], [0]).data
    1000.0
    """
    xs = _as_list(logits, "logits", "binary_cross_entropy_with_logits")
    ts = _as_list(targets, "targets", "binary_cross_entropy_with_logits")
    _paired(xs, ts, "binary_cross_entropy_with_logits")
    terms = []
    for i, (x, t) in enumerate(zip(xs, ts)):
        tv = t.data if isinstance(t, Value) else _number(t, f"targets[{i}]")
        if not 0.0 <= tv <= 1.0:
            raise ValueError(f"targets[{i}] must be a probability in [0, 1], got {tv!r}")
        x = x if isinstance(x, Value) else Value(_number(x, f"logits[{i}]"))
        if x.data >= 0.0:
            terms.append((1 - t) * x + (-x).softplus())
        else:
            terms.append(x.softplus() - t * x)
    return _mean(terms, "binary_cross_entropy_with_logits")


def log_softmax(logits: Sequence[Value]) -> list[Value]:
    """``z_i - logsumexp(z)``, with the max subtracted first: no overflow at logits of 1000.

    >>> from micrograd import Value
    >>> [round(v.exp().data, 4) for v in log_softmax([Value(0.0), Value(0.0)])]
    [0.5, 0.5]
    """
    zs = [z if isinstance(z, Value) else Value(_number(z, "a logit")) for z in logits]
    if not zs:
        raise ValueError("log_softmax needs at least one logit")
    m = max(z.data for z in zs)
    if not math.isfinite(m):
        m = 0.0  # inf or nan logits: let the result be inf/nan, as PyTorch does
    shifted = [z - m for z in zs]  # m is a constant: the gradient of logsumexp is still softmax
    total = micrograd.sum(s.exp() for s in shifted)
    lse = total.log()
    return [s - lse for s in shifted]


def cross_entropy(
    logits_per_sample: Sequence[Sequence[Value]], classes: Sequence[int] | Sequence[Value]
) -> Value:
    """Softmax cross-entropy: the mean of ``-log softmax(logits)[class]`` over samples.

    ``logits_per_sample`` holds one list of C logits per sample (for instance
    the outputs of ``MLP(nin, [..., C])``), ``classes`` one class index in
    ``range(C)`` per sample, as ``torch.nn.functional.cross_entropy``.  A class
    may be a Value holding the index, e.g. a label that ``micrograd.compile``
    traces: ``Pick`` then selects its log-probability inside the graph, so that
    a batched replay gives each sample its own class (a label outside
    ``range(C)`` there makes the loss and the gradients nan).

    >>> from micrograd import Value
    >>> round(cross_entropy([[Value(1000.0), Value(0.0)]], [1]).data, 6)
    1000.0
    >>> round(cross_entropy([[Value(1000.0), Value(0.0)]], [Value(1.0)]).data, 6)
    1000.0
    """
    samples = list(logits_per_sample)
    if not samples:
        raise ValueError("logits_per_sample is empty")
    labels: list[Any] = list(classes)
    _paired(samples, labels, "cross_entropy")
    terms: list[Value] = []
    for i, (zs, c) in enumerate(zip(samples, labels)):
        if isinstance(zs, Value) or not isinstance(zs, Sequence):
            raise TypeError(f"logits_per_sample[{i}] must be a list of logits, got {type(zs).__name__}")
        if isinstance(c, Value):  # its number must be an index too (a float with an int's value)
            valid = isinstance(c.data, (int, float)) and c.data in range(len(zs))
        else:
            valid = not isinstance(c, bool) and isinstance(c, numbers.Integral) and c in range(len(zs))
        if not valid:
            raise ValueError(f"classes[{i}] must be a class index in range({len(zs)}), got {c!r}")
        logp = log_softmax(zs)
        terms.append(-(Pick.apply(c, *logp) if isinstance(c, Value) else logp[int(c)]))
    return _mean(terms, "cross_entropy")
