"""Losses: values against their formulas (and PyTorch), gradients against finite differences,
stability at extreme logits, and clear errors for bad labels."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd import Value, gradcheck, gradgradcheck
from nn import accuracy, losses

floats = st.floats(-5.0, 5.0, allow_nan=False)


def values(xs: list[float]) -> list[Value]:
    return [Value(x) for x in xs]


def test_mse_value() -> None:
    assert losses.mse(values([1.0, 3.0]), [0.0, 1.0]).data == 2.5
    assert losses.mse(Value(2.0), 0.5).data == 2.25


def test_hinge_is_micrograds_demo_loss_bit_for_bit() -> None:
    scores = values([0.3, -1.7, 2.2, 0.9])
    ys = [1, -1, -1, 1]
    expected = sum((1 + -yi * si).relu() for yi, si in zip(ys, scores)) * (1.0 / len(ys))
    assert losses.hinge(scores, ys).data == expected.data
    assert losses.hinge(scores, [1, 0, 0, 1]).data == expected.data  # 0 means -1


def test_hinge_names_the_way_to_write_it_for_a_traced_label() -> None:
    with pytest.raises(TypeError, match=r"labels\[0\] is a Value .*\(1 \+ -t \* score\)\.relu\(\)"):
        losses.hinge([Value(0.5)], [Value(1.0)])


@pytest.mark.parametrize("labels", [[1, 2], [-1, 0], [0.5, 1], [1, -1, 0]])
def test_hinge_rejects_mixed_or_unknown_labels(labels: list[float]) -> None:
    with pytest.raises(ValueError, match="binary labels"):
        losses.hinge(values([0.0] * len(labels)), labels)


def test_losses_need_matching_non_empty_inputs() -> None:
    with pytest.raises(ValueError, match="2 predictions but 1 targets"):
        losses.mse(values([1.0, 2.0]), [1.0])
    with pytest.raises(ValueError, match="empty"):
        losses.hinge([], [])
    with pytest.raises(TypeError, match="must be a number"):
        losses.hinge(values([1.0]), ["1"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"targets\[0\] must be a probability"):
        losses.binary_cross_entropy_with_logits(values([1.0]), [2.0])
    with pytest.raises(ValueError, match=r"classes\[1\] must be a class index in range\(2\)"):
        losses.cross_entropy([values([1.0, 2.0]), values([1.0, 2.0])], [0, 2])
    with pytest.raises(TypeError, match="list of logits"):
        losses.cross_entropy(values([1.0, 2.0]), [0, 1])  # type: ignore[arg-type]


def test_bce_with_logits_matches_the_definition() -> None:
    for x, t in [(0.3, 1.0), (-2.0, 0.0), (1.5, 0.25), (0.0, 1.0)]:
        s = 1 / (1 + math.exp(-x))
        expected = -(t * math.log(s) + (1 - t) * math.log(1 - s))
        assert losses.binary_cross_entropy_with_logits(Value(x), t).data == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize(
    ("x", "t", "value", "slope"),
    [(1000.0, 0, 1000.0, 1.0), (-1000.0, 1, 1000.0, -1.0), (1000.0, 1, 0.0, 0.0), (-1000.0, 0, 0.0, 0.0)],
)
def test_bce_with_logits_is_stable_at_1000(x: float, t: int, value: float, slope: float) -> None:
    logit = Value(x)
    loss = losses.binary_cross_entropy_with_logits([logit], [t])
    loss.backward()
    assert loss.data == value and logit.grad == slope


def test_cross_entropy_is_stable_at_1000() -> None:
    zs = values([1000.0, 0.0, -1000.0])
    loss = losses.cross_entropy([zs], [1])
    loss.backward()
    assert loss.data == 1000.0
    assert [z.grad for z in zs] == [1.0, -1.0, 0.0]  # softmax - onehot
    assert losses.cross_entropy([values([1000.0, 1000.0])], [0]).data == pytest.approx(math.log(2), rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(xs=st.lists(floats, min_size=1, max_size=5), data=st.data())
def test_loss_gradients_match_finite_differences(xs: list[float], data: st.DataObject) -> None:
    n = len(xs)
    ys = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    ts = data.draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n))
    assume(all(abs(1 - y * x) > 1e-3 for x, y in zip(xs, ys)))  # hinge's kink
    assert gradcheck(lambda *v: losses.mse(list(v), ts), values(xs))
    assert gradcheck(lambda *v: losses.hinge(list(v), ys), values(xs))
    assert gradcheck(lambda *v: losses.binary_cross_entropy_with_logits(list(v), ts), values(xs))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(floats, min_size=3, max_size=3), min_size=1, max_size=3), data=st.data())
def test_cross_entropy_gradients_match_finite_differences(
    rows: list[list[float]], data: st.DataObject
) -> None:
    classes = data.draw(st.lists(st.integers(0, 2), min_size=len(rows), max_size=len(rows)))
    flat = values([z for row in rows for z in row])

    def f(*zs: Value) -> Value:
        return losses.cross_entropy([list(zs[3 * i : 3 * i + 3]) for i in range(len(rows))], classes)

    assert gradcheck(f, flat)


@settings(max_examples=60, deadline=None)
@given(zs=st.lists(floats, min_size=1, max_size=6), data=st.data())
def test_pick_selects_its_entry_and_passes_the_gradient_to_it_alone(
    zs: list[float], data: st.DataObject
) -> None:
    label = data.draw(st.integers(0, len(zs) - 1))
    entries = values(zs)
    picked = losses.Pick.apply(Value(float(label)), *entries)
    picked.backward()
    assert picked.data == zs[label]
    assert [e.grad for e in entries] == [1.0 if k == label else 0.0 for k in range(len(zs))]
    assert gradcheck(lambda *v: losses.Pick.apply(Value(float(label)), *v) * v[0], values(zs))
    assert gradgradcheck(lambda *v: losses.Pick.apply(Value(float(label)), *v) * v[0], values(zs))
    nowhere = values(zs)
    missed = losses.Pick.apply(Value(len(zs) + 0.5), *nowhere)  # no entry has that index
    missed.backward()
    assert math.isnan(missed.data) and all(math.isnan(e.grad) for e in nowhere)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(floats, min_size=3, max_size=3), min_size=1, max_size=3), data=st.data())
def test_cross_entropy_with_classes_held_by_values_is_the_same_bit_for_bit(
    rows: list[list[float]], data: st.DataObject
) -> None:
    """A class given as a Value (a label micrograd.compile traces) picks its log-probability with
    Pick inside the graph: the loss and every gradient as with the class given as an int."""
    classes = data.draw(st.lists(st.integers(0, 2), min_size=len(rows), max_size=len(rows)))
    by_int, by_value = [values(r) for r in rows], [values(r) for r in rows]
    as_ints = losses.cross_entropy(by_int, classes)
    as_values = losses.cross_entropy(by_value, [Value(float(c)) for c in classes])
    as_ints.backward()
    as_values.backward()
    assert as_values.data == as_ints.data
    assert [z.grad for row in by_value for z in row] == [z.grad for row in by_int for z in row]
    with pytest.raises(ValueError, match=r"classes\[0\] must be a class index in range\(3\), got Value"):
        losses.cross_entropy([values(rows[0])], [Value(1.5)])


def test_losses_match_torch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the second oracle of the losses")
    F = torch.nn.functional
    xs = [0.3, -1.2, 25.0, -40.0, 0.0]
    ts = [1.0, 0.0, 0.0, 1.0, 0.5]
    tx = torch.tensor(xs, dtype=torch.float64)
    tt = torch.tensor(ts, dtype=torch.float64)
    assert losses.mse(values(xs), ts).data == pytest.approx(F.mse_loss(tx, tt).item(), rel=1e-15, abs=1e-15)
    ours = losses.binary_cross_entropy_with_logits(values(xs), ts).data
    assert ours == pytest.approx(F.binary_cross_entropy_with_logits(tx, tt).item(), rel=1e-14, abs=1e-14)
    rows = [[0.5, -1.0, 2.0], [1000.0, 999.0, -5.0], [0.0, 0.0, 0.0]]
    cls = [2, 1, 0]
    logits = [values(r) for r in rows]
    loss = losses.cross_entropy(logits, cls)
    loss.backward()
    tz = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
    tloss = F.cross_entropy(tz, torch.tensor(cls))
    tloss.backward()
    assert loss.data == pytest.approx(tloss.item(), rel=1e-14)
    assert tz.grad is not None
    for row, trow in zip(logits, tz.grad.tolist()):
        assert [z.grad for z in row] == pytest.approx(trow, rel=1e-12, abs=1e-15)


def test_accuracy_binary_and_multiclass() -> None:
    assert accuracy(values([0.3, -2.0, 1.0]), [1, -1, -1]) == 2 / 3
    assert accuracy([0.3, -2.0, 1.0], [1, 0, 1]) == 1.0
    assert accuracy([values([0.1, 0.9]), [2.0, -1.0]], [1, 1]) == 0.5
    with pytest.raises(ValueError, match="2 outputs but 1 labels"):
        accuracy([0.1, 0.2], [1])
    with pytest.raises(ValueError, match=r"labels\[0\] must be a class index in range\(2\)"):
        accuracy([[0.1, 0.9]], [3])
