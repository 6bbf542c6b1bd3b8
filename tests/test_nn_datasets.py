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
    for make in (datasets.make_moons, datasets.make_circles, datasets.make_spirals):
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


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: datasets.make_moons(1), "n_samples must be an int >= 2"),
        (lambda: datasets.make_moons(10, noise=-0.1), "noise must be a finite number"),
        (lambda: datasets.make_circles(10, factor=1.0), r"factor must be in \[0, 1\)"),
        (lambda: datasets.make_spirals(10, n_classes=1), "n_classes must be an int >= 2"),
        (lambda: datasets.make_spirals(2, n_classes=3), "n_samples must be an int >= 3"),
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
