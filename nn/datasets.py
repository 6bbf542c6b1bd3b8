"""Datasets: toy 2-D problems in plain Python, scikit-learn's 8x8 digits, and mini-batches.

Each generator returns ``(X, y)``: ``X`` a list of ``[x0, x1]`` float lists,
``y`` a list of int class labels.  ``make_moons`` and ``make_circles`` follow
scikit-learn's constructions (points evenly spaced along the curves, shuffled,
then Gaussian noise), drawn from ``random.Random(seed)`` instead of NumPy, so
the numbers differ from scikit-learn's but the distribution is the same.

``load_digits`` reads the handwritten digits scikit-learn ships (no download;
scikit-learn is an optional dependency, in the ``demos`` extra), and
``batches`` cuts any dataset into shuffled, seeded mini-batches.
"""

from __future__ import annotations

import math
import numbers
import random
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

T = TypeVar("T")
Points = list[list[float]]


# numbers.Integral and numbers.Real take NumPy scalars too: make_moons(np.int64(100), noise=np.float32(0.1))


def _rng(seed: object) -> random.Random:
    if seed is None:
        return random.Random()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}: {seed!r}")
    return random.Random(int(seed))  # random.Random refuses NumPy ints


def _count(n: object, what: str, least: int) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < least:
        raise ValueError(f"{what} must be an int >= {least}, got {n!r}")
    return int(n)


def _check(n_samples: object, noise: object, least: int = 2) -> tuple[int, float]:
    n = _count(n_samples, "n_samples", least)
    if noise is None:
        return n, 0.0
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not 0 <= float(noise) < math.inf:
        raise ValueError(f"noise must be a finite number >= 0 or None, got {noise!r}")
    return n, float(noise)


def _linspace(start: float, stop: float, n: int, endpoint: bool = True) -> list[float]:
    """NumPy's linspace: start + i * step, the last point exactly ``stop`` with ``endpoint``."""
    if n == 1:
        return [start]
    step = (stop - start) / (n - 1 if endpoint else n)
    points = [start + i * step for i in range(n)]
    if endpoint:
        points[-1] = stop
    return points


def _finish(
    points: Points, y: list[int], shuffle: bool, noise: float, rng: random.Random
) -> tuple[Points, list[int]]:
    if shuffle:
        order = list(range(len(points)))
        rng.shuffle(order)
        points, y = [points[i] for i in order], [y[i] for i in order]
    if noise:
        points = [[a + rng.gauss(0.0, noise), b + rng.gauss(0.0, noise)] for a, b in points]
    return points, y


def make_moons(
    n_samples: int = 100, noise: float | None = None, seed: int | None = None, shuffle: bool = True
) -> tuple[Points, list[int]]:
    """Two interleaving half circles (scikit-learn's ``make_moons``): class 0 on the
    upper unit half circle, class 1 on the lower one shifted to (1, 0.5).

    >>> X, y = make_moons(4, seed=0, shuffle=False)
    >>> [[round(a, 3), round(b, 3)] for a, b in X], y
    ([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [2.0, 0.5]], [0, 0, 1, 1])
    """
    n_samples, sd = _check(n_samples, noise)
    rng = _rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer = _linspace(0.0, math.pi, n_out)
    inner = _linspace(0.0, math.pi, n_in)
    points = [[math.cos(t), math.sin(t)] for t in outer] + [
        [1 - math.cos(t), 1 - math.sin(t) - 0.5] for t in inner
    ]
    y = [0] * n_out + [1] * n_in
    return _finish(points, y, shuffle, sd, rng)


def make_circles(
    n_samples: int = 100,
    noise: float | None = None,
    factor: float = 0.8,
    seed: int | None = None,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """A large circle (class 0, radius 1) around a small one (class 1, radius
    ``factor``), as scikit-learn's ``make_circles``.

    >>> X, y = make_circles(4, factor=0.5, seed=0, shuffle=False)
    >>> [[round(a, 3) + 0.0, round(b, 3) + 0.0] for a, b in X], y
    ([[1.0, 0.0], [-1.0, 0.0], [0.5, 0.0], [-0.5, 0.0]], [0, 0, 1, 1])
    """
    n_samples, sd = _check(n_samples, noise)
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 <= factor < 1:
        raise ValueError(f"factor must be in [0, 1), got {factor!r}")
    factor = float(factor)
    rng = _rng(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer = _linspace(0.0, 2 * math.pi, n_out, endpoint=False)
    inner = _linspace(0.0, 2 * math.pi, n_in, endpoint=False)
    points = [[math.cos(t), math.sin(t)] for t in outer] + [
        [factor * math.cos(t), factor * math.sin(t)] for t in inner
    ]
    y = [0] * n_out + [1] * n_in
    return _finish(points, y, shuffle, sd, rng)


def make_spirals(
    n_samples: int = 300,
    n_classes: int = 3,
    noise: float | None = None,
    seed: int | None = None,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """``n_classes`` interleaved spiral arms (CS231n's spiral data): arm k has
    points at radii r evenly spaced in [0, 1] and angles ``2 pi k / n_classes + 4 r``
    (each arm winds 4 radians), then Gaussian noise of standard deviation
    ``noise`` on each coordinate.  Samples are split as evenly as possible
    between the arms, the first arms taking the remainder.

    >>> X, y = make_spirals(6, n_classes=3, seed=0, shuffle=False)
    >>> y
    [0, 0, 1, 1, 2, 2]
    >>> [round(math.hypot(*p), 3) for p in X]
    [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    """
    n_classes = _count(n_classes, "n_classes", 2)
    n_samples, sd = _check(n_samples, noise, least=n_classes)
    rng = _rng(seed)
    points: Points = []
    y: list[int] = []
    for k in range(n_classes):
        n = n_samples // n_classes + (k < n_samples % n_classes)
        start = 2 * math.pi * k / n_classes
        for r in _linspace(0.0, 1.0, n):
            t = start + 4.0 * r
            points.append([r * math.sin(t), r * math.cos(t)])
            y.append(k)
    return _finish(points, y, shuffle, sd, rng)


def make_xor(
    n_samples: int = 100,
    noise: float | None = None,
    seed: int | None = None,
    margin: float = 0.1,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """The exclusive or: points uniform in the square [-1, 1]^2, each coordinate at least
    ``margin`` from 0 (so the classes are apart before the noise), class 1 where x and y have
    the same sign (the first and third quadrants), class 0 elsewhere; then Gaussian noise.

    >>> X, y = make_xor(200, seed=0)
    >>> all((a * b > 0) == (label == 1) for (a, b), label in zip(X, y))
    True
    >>> min(min(abs(a), abs(b)) for a, b in X) >= 0.1
    True
    """
    n_samples, sd = _check(n_samples, noise)
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real) or not 0 <= margin < 1:
        raise ValueError(f"margin must be in [0, 1), got {margin!r}")
    rng = _rng(seed)

    def coordinate() -> float:  # a magnitude in [margin, 1], either sign
        return rng.choice((-1.0, 1.0)) * rng.uniform(float(margin), 1.0)

    points = [[coordinate(), coordinate()] for _ in range(n_samples)]
    y = [int(a * b > 0) for a, b in points]
    return _finish(points, y, shuffle, sd, rng)


def make_gaussian(
    n_samples: int = 100,
    noise: float | None = None,
    seed: int | None = None,
    center: float = 0.7,
    spread: float = 0.25,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """Two round Gaussian blobs of standard deviation ``spread``: class 0 around
    (-center, -center), class 1 around (center, center), half the samples each (class 1
    takes an odd one); then Gaussian noise of standard deviation ``noise``, which widens them.

    >>> X, y = make_gaussian(1000, seed=0)
    >>> ones = [p for p, label in zip(X, y) if label == 1]
    >>> len(ones), round(sum(a for a, _ in ones) / len(ones), 1)
    (500, 0.7)
    """
    n_samples, sd = _check(n_samples, noise)
    for name, v in (("center", center), ("spread", spread)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not 0 <= float(v) < math.inf:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    rng = _rng(seed)
    n_out = n_samples // 2
    y = [0] * n_out + [1] * (n_samples - n_out)
    c = float(center)
    points = [[rng.gauss(c if k else -c, float(spread)), rng.gauss(c if k else -c, float(spread))] for k in y]
    return _finish(points, y, shuffle, sd, rng)


def train_test_split(
    X: Sequence[T],  # noqa: N803 - scikit-learn's name
    y: Sequence[int],
    test_size: float | int = 0.25,
    seed: int | None = None,
) -> tuple[list[T], list[T], list[int], list[int]]:
    """Shuffle and split into ``(X_train, X_test, y_train, y_test)``, as scikit-learn.

    ``test_size`` is a fraction in (0, 1) (the test set gets ``ceil(test_size * n)``
    samples) or a number of samples.  Both sets always get at least one sample.

    >>> X_train, X_test, y_train, y_test = train_test_split([[0], [1], [2], [3]], [0, 1, 0, 1], 0.25, seed=0)
    >>> len(X_train), len(X_test), sorted(map(tuple, X_train + X_test))
    (3, 1, [(0,), (1,), (2,), (3,)])
    """
    n = len(X)
    if len(y) != n:
        raise ValueError(f"X has {n} samples but y has {len(y)}")
    if n < 2:
        raise ValueError(f"need at least 2 samples to split, got {n}")
    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real):
        raise TypeError(f"test_size must be a fraction or a count, got {type(test_size).__name__}")
    if not isinstance(test_size, numbers.Integral):  # a float: the fraction of samples for testing
        if not 0.0 < test_size < 1.0:
            raise ValueError(f"test_size as a fraction must be in (0, 1), got {test_size!r}")
        n_test = math.ceil(float(test_size) * n)
    else:
        n_test = int(test_size)
    if not 1 <= n_test <= n - 1:
        raise ValueError(
            f"test_size={test_size!r} leaves {n_test} of {n} samples for testing; need 1..{n - 1}"
        )
    order = list(range(n))
    _rng(seed).shuffle(order)
    test, train = order[:n_test], order[n_test:]
    return [X[i] for i in train], [X[i] for i in test], [y[i] for i in train], [y[i] for i in test]


# ---- scikit-learn's handwritten digits -------------------------------------------------------


def load_digits(
    test_size: float | int = 0.2, seed: int | None = 0
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """The 1,797 handwritten digits (8x8 grey images, classes 0-9) that scikit-learn
    ships with itself (no download), split into ``(X_train, y_train, X_test, y_test)``.

    ``X`` rows are the 64 pixels, row by row, scaled from scikit-learn's 0..16 to
    [0, 1] (float64); ``y`` the digits (int64).  The split shuffles with
    ``random.Random(seed)`` as ``train_test_split`` does (``test_size``: a fraction,
    the test set getting ``ceil(test_size * 1797)`` images, or a count), so it
    depends on the seed only.  Needs scikit-learn (``pip install scikit-learn``,
    or this project's ``demos`` extra); without it, an ImportError says so.
    """
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError as e:
        raise ImportError(
            "nn.datasets.load_digits reads the digits that scikit-learn ships, and scikit-learn is not "
            "installed: pip install scikit-learn (or pip install 'micrograd-next[demos]')"
        ) from e
    import numpy

    bunch = sklearn_digits()
    images = numpy.asarray(bunch.data, dtype=numpy.float64) / 16.0
    labels = numpy.asarray(bunch.target, dtype=numpy.int64)
    order = numpy.arange(len(labels))
    train, test, _, _ = train_test_split(order.tolist(), labels.tolist(), test_size=test_size, seed=seed)
    return images[train], labels[train], images[test], labels[test]


# ---- first names, for microgpt ---------------------------------------------------------------

NAME_FILES = ("dist.female.first", "dist.male.first")  # the US census first names the `names` package ships


def load_names() -> list[str]:
    """Thousands of lowercase first names (US census), each once, female names first, in the
    census files' order (most common first): microgpt's dataset, offline.

    They are read from the files the PyPI package ``names`` (0.3.0) ships; without it, an
    ImportError says how to install it (``make demo`` does).

    >>> names = load_names()
    >>> len(names) > 4000, names[:3], all(n.isalpha() and n.islower() for n in names)
    (True, ['mary', 'patricia', 'linda'], True)
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("names")
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    if folder is None or not all((folder / f).is_file() for f in NAME_FILES):
        raise ImportError(
            "nn.datasets.load_names reads the US census first names that the PyPI package `names` ships, "
            "and it is not installed: pip install names==0.3.0 (or pip install 'micrograd-next[demos]')"
        )
    seen: dict[str, None] = {}
    for file in NAME_FILES:
        for line in (folder / file).read_text(encoding="ascii").splitlines():
            name = line.split(" ", 1)[0].strip().lower()
            if name.isalpha():
                seen.setdefault(name, None)
    return list(seen)


# ---- mini-batches ----------------------------------------------------------------------------

D = TypeVar("D")
L = TypeVar("L")


def _is_array(x: object) -> bool:
    numpy = sys.modules.get("numpy")  # no numpy imported: x cannot be an array
    return numpy is not None and isinstance(x, numpy.ndarray)


def _length(x: object, what: str) -> int:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or not hasattr(x, "__getitem__"):
        raise TypeError(
            f"{what} must be a list (one item per sample) or a numpy array, got {type(x).__name__}"
        )
    if _is_array(x) and getattr(x, "ndim", 1) == 0:
        raise TypeError(f"{what} must have one item per sample, got a 0-d numpy array")
    return len(x)


class Batches(Generic[D, L]):
    """Mini-batches of a dataset, made by ``batches``: iterate for ``(X_batch, y_batch)`` pairs
    (the same order each time); ``len()`` is the number of batches."""

    def __init__(self, X: D, y: L, order: list[int], batch_size: int, drop_last: bool) -> None:  # noqa: N803
        self._X, self._y, self._order = X, y, order
        self.batch_size = batch_size
        full, rest = divmod(len(order), batch_size)
        self._count = full + (1 if rest and not drop_last else 0)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[tuple[D, L]]:
        for b in range(self._count):
            index = self._order[b * self.batch_size : (b + 1) * self.batch_size]
            yield _take(self._X, index), _take(self._y, index)

    def __repr__(self) -> str:
        return f"Batches({self._count} batches of up to {self.batch_size} of {len(self._order)} samples)"


def _take(data: Any, index: list[int]) -> Any:
    if _is_array(data):
        return data[index]
    return [data[i] for i in index]


def batches(
    X: D,  # noqa: N803 - scikit-learn's name
    y: L,
    batch_size: int,
    shuffle: bool = True,
    seed: int | None = None,
    drop_last: bool = False,
) -> Batches[D, L]:
    """Cut ``(X, y)`` into mini-batches of ``batch_size`` samples: ``(X_batch, y_batch)`` pairs.

    ``X`` and ``y`` hold one item per sample (lists, or numpy arrays along their
    first axis); each batch is of the same kind (a list of the items, or an
    array).  With ``shuffle`` the samples are visited in an order drawn from
    ``random.Random(seed)`` (pass a new seed each epoch, e.g. the epoch number,
    for a new order; ``seed=None`` draws one from the system), else in order.
    The last batch is shorter when ``batch_size`` does not divide the samples;
    ``drop_last=True`` leaves it out, as PyTorch's ``DataLoader``.

    >>> [yb for _, yb in batches([[0], [1], [2], [3], [4]], [0, 1, 2, 3, 4], 2, shuffle=False)]
    [[0, 1], [2, 3], [4]]
    >>> len(batches([[0], [1], [2], [3], [4]], [0, 1, 2, 3, 4], 2, drop_last=True))
    2
    """
    n = _length(X, "X")
    if _length(y, "y") != n:
        raise ValueError(f"X has {n} samples but y has {_length(y, 'y')}")
    if n == 0:
        raise ValueError("X and y are empty: no samples to batch")
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    if not isinstance(shuffle, bool):
        raise TypeError(f"shuffle must be True or False, got {type(shuffle).__name__}: {shuffle!r}")
    if not isinstance(drop_last, bool):
        raise TypeError(f"drop_last must be True or False, got {type(drop_last).__name__}: {drop_last!r}")
    order = list(range(n))
    rng = _rng(seed)  # checks the seed, shuffled or not
    if shuffle:
        rng.shuffle(order)
    if drop_last and batch_size > n:
        raise ValueError(
            f"batch_size={batch_size} with drop_last=True leaves no batch of {n} samples; "
            "use a smaller batch_size or drop_last=False"
        )
    return Batches(X, y, order, int(batch_size), drop_last)
