"""Datasets: shapes, labels, geometry, determinism, and the split."""

from __future__ import annotations

import math

import pytest

from nn import datasets


def test_moons_without_noise_lie_on_scikit_learns_half_circles() -> None:
    X, y = datasets.make_moons(101, seed=0)
    assert len(X) == 101 and y.count(0) == 50 and y.count(1) == 51
    for (a, b), label in zip(X, y):
        if label == 0:  # upper unit half circle
            assert math.hypot(a, b) == pytest.approx(1.0) and b >= -1e-12
        else:  # lower half circle centred at (1, 0.5)
            assert math.hypot(a - 1, b - 0.5) == pytest.approx(1.0) and b <= 0.5 + 1e-12
    assert y != sorted(y)  # shuffled by default


def test_moons_noise_has_the_requested_spread() -> None:
    clean, y0 = datasets.make_moons(2000, seed=3, shuffle=False)
    noisy, y1 = datasets.make_moons(2000, noise=0.1, seed=3, shuffle=False)
    assert y0 == y1
    diffs = [n - c for p, q in zip(noisy, clean) for n, c in zip(p, q)]
    sd = math.sqrt(sum(d * d for d in diffs) / len(diffs))
    assert 0.09 < sd < 0.11


def test_generators_are_deterministic_from_the_seed() -> None:
    generators = (
        datasets.make_moons,
        datasets.make_circles,
        datasets.make_spirals,
        datasets.make_xor,
        datasets.make_gaussian,
    )
    for make in generators:
        assert make(60, noise=0.1, seed=4) == make(60, noise=0.1, seed=4)
        assert make(60, noise=0.1, seed=4) != make(60, noise=0.1, seed=5)
        X, y = make(60, noise=0.1, seed=4)
        assert all(isinstance(p, list) and len(p) == 2 and all(type(c) is float for c in p) for p in X)
        assert all(type(label) is int for label in y)


def test_circles_radii() -> None:
    X, y = datasets.make_circles(40, factor=0.3, seed=0)
    for (a, b), label in zip(X, y):
        assert math.hypot(a, b) == pytest.approx(1.0 if label == 0 else 0.3)


def test_spirals_classes_and_radii() -> None:
    X, y = datasets.make_spirals(100, n_classes=3, seed=0, shuffle=False)
    assert [y.count(k) for k in range(3)] == [34, 33, 33]
    assert max(math.hypot(a, b) for a, b in X) == pytest.approx(1.0)
    # the arms are rotated copies of each other: the k-th arm's last point sits 2*pi*k/3 further on
    ends = [X[y.index(k) + y.count(k) - 1] for k in range(3)]
    angles = [math.atan2(a, b) for a, b in ends]
    assert (angles[1] - angles[0]) % (2 * math.pi) == pytest.approx(2 * math.pi / 3)


def test_xor_quadrants_and_margin() -> None:
    X, y = datasets.make_xor(400, seed=2, margin=0.2)
    assert y.count(1) > 150 and y.count(0) > 150  # about half each
    for (a, b), label in zip(X, y):
        assert 0.2 <= abs(a) <= 1.0 and 0.2 <= abs(b) <= 1.0
        assert label == (1 if a * b > 0 else 0)  # 1 in the first and third quadrants
    noisy, y2 = datasets.make_xor(400, noise=0.3, seed=2, margin=0.2)
    assert y2 == y and noisy != X  # the same draws, then the noise (labels from the clean points)


def test_gaussian_blobs_centres_and_spread() -> None:
    X, y = datasets.make_gaussian(4001, seed=1, center=0.5, spread=0.2, shuffle=False)
    assert y.count(0) == 2000 and y.count(1) == 2001
    for k, c in ((0, -0.5), (1, 0.5)):
        blob = [p for p, label in zip(X, y) if label == k]
        for axis in (0, 1):
            mean = sum(p[axis] for p in blob) / len(blob)
            sd = math.sqrt(sum((p[axis] - mean) ** 2 for p in blob) / len(blob))
            assert mean == pytest.approx(c, abs=0.02) and sd == pytest.approx(0.2, abs=0.01)
    wide, _ = datasets.make_gaussian(4001, noise=0.2, seed=1, center=0.5, spread=0.2, shuffle=False)
    sd = math.sqrt(sum((p[0] - 0.5) ** 2 for p in wide[2000:]) / 2001)
    assert sd == pytest.approx(math.hypot(0.2, 0.2), abs=0.015)  # independent spreads add in squares


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: datasets.make_moons(1), "n_samples must be an int >= 2"),
        (lambda: datasets.make_moons(10, noise=-0.1), "noise must be a finite number"),
        (lambda: datasets.make_circles(10, factor=1.0), r"factor must be in \[0, 1\)"),
        (lambda: datasets.make_spirals(10, n_classes=1), "n_classes must be an int >= 2"),
        (lambda: datasets.make_spirals(2, n_classes=3), "n_samples must be an int >= 3"),
        (lambda: datasets.make_xor(10, margin=1.0), r"margin must be in \[0, 1\)"),
        (lambda: datasets.make_gaussian(10, spread=-1), "spread must be a finite number >= 0"),
        (lambda: datasets.make_gaussian(10, center=math.inf), "center must be a finite number >= 0"),
    ],
)
def test_bad_arguments(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_train_test_split() -> None:
    X, y = datasets.make_moons(100, seed=0)
    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, test_size=0.25, seed=1)
    assert (len(X_train), len(X_test), len(y_train), len(y_test)) == (75, 25, 75, 25)
    pairs = sorted(zip(map(tuple, X), y))
    assert sorted(zip(map(tuple, X_train + X_test), y_train + y_test)) == pairs  # a partition, rows kept
    assert datasets.train_test_split(X, y, test_size=0.25, seed=1)[1] == X_test
    assert len(datasets.train_test_split(X, y, test_size=10)[1]) == 10
    with pytest.raises(ValueError, match="leaves 0 of 100"):
        datasets.train_test_split(X, y, test_size=0)
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\)"):
        datasets.train_test_split(X, y, test_size=1.5)
    with pytest.raises(ValueError, match="X has 100 samples but y has 99"):
        datasets.train_test_split(X, y[:-1])


# ---- mini-batches ----------------------------------------------------------------------------


def test_batches_cover_every_sample_once_in_a_seeded_order() -> None:
    X = [[float(i), -float(i)] for i in range(10)]
    y = list(range(10))
    got = list(datasets.batches(X, y, 4, seed=7))
    assert [len(yb) for _, yb in got] == [4, 4, 2]  # the last, partial batch kept
    seen = [label for _, yb in got for label in yb]
    assert sorted(seen) == y and seen != y  # every sample once, shuffled
    for xb, yb in got:
        assert xb == [X[i] for i in yb]  # X and y stay paired
    assert list(datasets.batches(X, y, 4, seed=7)) == got  # the seed fixes the order
    assert list(datasets.batches(X, y, 4, seed=8)) != got
    in_order = datasets.batches(X, y, 4, shuffle=False)
    assert [yb for _, yb in in_order] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(in_order) == 3 and list(in_order) == list(in_order)  # iterable again, same batches


def test_batches_drop_last_leaves_out_the_partial_batch() -> None:
    y = list(range(10))
    kept = datasets.batches(y, y, 4, seed=1)
    dropped = datasets.batches(y, y, 4, seed=1, drop_last=True)
    assert len(kept) == 3 and len(dropped) == 2
    assert list(dropped) == list(kept)[:2]
    assert len(datasets.batches(y, y, 5, drop_last=True)) == 2  # exact division: nothing to drop
    assert [len(b) for b, _ in datasets.batches(y, y, 64)] == [10]


def test_batches_of_numpy_arrays_are_numpy_arrays() -> None:
    np = pytest.importorskip("numpy")
    X = np.arange(30.0).reshape(10, 3)
    y = np.arange(10)
    got = list(datasets.batches(X, y, 3, seed=0))
    assert [xb.shape for xb, _ in got] == [(3, 3), (3, 3), (3, 3), (1, 3)]
    for xb, yb in got:
        assert isinstance(xb, np.ndarray) and isinstance(yb, np.ndarray) and yb.dtype == y.dtype
        assert (xb == X[yb]).all()
    # the same order as for lists with the same seed; mixed kinds keep each one's kind
    as_lists = list(datasets.batches(X.tolist(), y.tolist(), 3, seed=0))
    assert [yb.tolist() for _, yb in got] == [yb for _, yb in as_lists]
    xb, yb = next(iter(datasets.batches(X, y.tolist(), 3, seed=0)))
    assert isinstance(xb, np.ndarray) and isinstance(yb, list)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (([1, 2], [1], 1), {}, ValueError, "X has 2 samples but y has 1"),
        (([], [], 1), {}, ValueError, "empty"),
        (([1, 2], [1, 2], 0), {}, ValueError, "batch_size must be an int >= 1, got 0"),
        (([1, 2], [1, 2], 1.5), {}, ValueError, "batch_size must be an int >= 1"),
        (([1, 2], [1, 2], True), {}, ValueError, "batch_size must be an int >= 1"),
        (([1, 2], [1, 2], 3), {"drop_last": True}, ValueError, "leaves no batch"),
        ((5, [1], 1), {}, TypeError, "X must be a list"),
        (([1], "a", 1), {}, TypeError, "y must be a list"),
        (([1, 2], [1, 2], 1), {"seed": 1.5}, TypeError, "seed must be an int or None"),
        (([1, 2], [1, 2], 1), {"shuffle": "yes"}, TypeError, "shuffle must be True or False"),
        (([1, 2], [1, 2], 1), {"drop_last": 1}, TypeError, "drop_last must be True or False"),
    ],
)
def test_batches_errors_say_what_is_wrong(
    args: tuple[object, ...], kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        datasets.batches(*args, **kwargs)  # type: ignore[arg-type]


# ---- scikit-learn's digits -------------------------------------------------------------------


def test_load_digits_splits_scikit_learns_digits_scaled_to_one() -> None:
    np = pytest.importorskip("numpy")
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    X_train, y_train, X_test, y_test = datasets.load_digits(test_size=0.2, seed=0)
    assert X_train.shape == (1437, 64) and X_test.shape == (360, 64)  # ceil(0.2 * 1797) for testing
    assert y_train.shape == (1437,) and y_test.shape == (360,)
    assert X_train.dtype == np.float64 and y_train.dtype == np.int64
    assert X_train.min() == 0.0 and X_train.max() == 1.0
    assert sorted(set(y_train.tolist())) == list(range(10))
    # every image exactly once, with its own label
    digits = sklearn_datasets.load_digits()
    both = np.concatenate([X_train, X_test]) * 16.0
    labels = np.concatenate([y_train, y_test])
    order = np.lexsort(both.T[::-1])
    ref = np.lexsort(digits.data.T[::-1])
    assert (both[order] == digits.data[ref]).all() and (labels[order] == digits.target[ref]).all()
    again = datasets.load_digits(test_size=0.2, seed=0)
    assert (again[0] == X_train).all() and (again[3] == y_test).all()
    other = datasets.load_digits(test_size=100, seed=1)
    assert other[2].shape == (100, 64) and not (other[1][:100] == y_train[:100]).all()


def test_load_digits_without_scikit_learn_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn now raises ImportError
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match=r"pip install scikit-learn"):
        datasets.load_digits()
