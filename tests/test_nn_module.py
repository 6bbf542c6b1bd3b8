"""Module: parameter discovery, zero_grad, state_dict and load_state_dict."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from micrograd import Value
from nn import MLP, Layer, Module, Neuron


class Affine(Module):
    def __init__(self) -> None:
        self.scale = Value(2.0)
        self.inner = Neuron(2, nonlin=False, seed=0)
        self.extra = [Value(1.0), Value(-1.0)]
        self.blocks = [Neuron(1, seed=1), Neuron(1, seed=2)]
        self.name = "not a parameter"
        self._cache = Value(99.0)  # private: not a parameter

    def __call__(self, x: list[float]) -> Value:
        return self.scale * self.inner(x)


def test_named_parameters_follow_attribute_order_depth_first() -> None:
    names = [name for name, _ in Affine().named_parameters()]
    assert names == [
        "scale",
        "inner.w.0",
        "inner.w.1",
        "inner.b",
        "extra.0",
        "extra.1",
        "blocks.0.w.0",
        "blocks.0.b",
        "blocks.1.w.0",
        "blocks.1.b",
    ]


class Renamed(Module):
    """A module that says what its parameters are itself: only ``kept``, named ``only``."""

    def __init__(self) -> None:
        self.kept, self.ignored = Value(1.0), Value(2.0)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Value]]:
        yield prefix + "only", self.kept


def test_parameters_are_the_named_parameters_in_their_order_overrides_included() -> None:
    class Outer(Module):
        def __init__(self) -> None:
            self.affine, self.renamed, self.rows = Affine(), Renamed(), [[Renamed()], (Value(3.0),)]

    for module in (Affine(), Outer(), Renamed(), MLP(3, [4, 2], seed=1)):
        named = list(module.named_parameters())
        assert all(a is b for a, b in zip(module.parameters(), [p for _, p in named], strict=True))
        assert module.num_parameters() == len(named)
    outer = Outer()
    names = [name for name, _ in outer.named_parameters()]
    assert names[-3:] == ["renamed.only", "rows.0.0.only", "rows.1.0"]
    assert next(outer.named_parameters("m.")) == ("m.affine.scale", outer.affine.scale)
    outer.renamed.kept.grad = outer.renamed.ignored.grad = 5.0
    outer.zero_grad()
    assert (outer.renamed.kept.grad, outer.renamed.ignored.grad) == (0.0, 5.0)


def test_mlp_parameter_order_is_micrograds() -> None:
    model = MLP(2, [3, 1], seed=0)
    expected = [p for layer in model.layers for n in layer.neurons for p in [*n.w, n.b]]
    assert all(a is b for a, b in zip(model.parameters(), expected, strict=True))
    names = [name for name, _ in model.named_parameters()]
    assert names[:4] == [
        "layers.0.neurons.0.w.0",
        "layers.0.neurons.0.w.1",
        "layers.0.neurons.0.b",
        "layers.0.neurons.1.w.0",
    ]
    assert names[-1] == "layers.1.neurons.0.b"
    assert model.num_parameters() == len(names) == 3 * 3 + 4


def test_zero_grad_resets_every_parameter() -> None:
    model = MLP(2, [4, 1], seed=0)
    out = model([1.0, -2.0])
    assert isinstance(out, Value)
    (out * out + 1).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_state_dict_round_trip_copies_values() -> None:
    a, b = MLP(2, [4, 1], seed=0), MLP(2, [4, 1], seed=1)
    state = a.state_dict()
    assert all(type(v) is float for v in state.values())
    b.load_state_dict(state)
    assert b.state_dict() == state
    b.parameters()[0].data += 1.0  # a copy: a is untouched
    assert a.state_dict() == state


def test_strict_load_names_missing_and_unexpected_keys_and_changes_nothing() -> None:
    model = MLP(2, [2, 1], seed=0)
    before = model.state_dict()
    state = dict(before)
    del state["layers.0.neurons.1.b"]
    state["layers.9.bogus"] = 1.0
    with pytest.raises(KeyError) as err:
        model.load_state_dict({k: v + 1 for k, v in state.items()})
    assert "layers.0.neurons.1.b" in str(err.value) and "layers.9.bogus" in str(err.value)
    assert model.state_dict() == before


def test_non_strict_load_reports_keys_and_loads_the_rest() -> None:
    model = MLP(2, [2, 1], seed=0)
    result = model.load_state_dict({"layers.0.neurons.0.b": 0.5, "other": 1.0}, strict=False)
    assert result.unexpected_keys == ["other"]
    assert "layers.0.neurons.0.b" not in result.missing_keys and len(result.missing_keys) == 8
    assert model.layers[0].neurons[0].b.data == 0.5


@pytest.mark.parametrize("bad", [math.nan, math.inf, "1.0", None, True])
def test_load_rejects_bad_values_atomically(bad: object) -> None:
    model = MLP(2, [2, 1], seed=0)
    before = model.state_dict()
    state: dict[str, object] = {k: 0.0 for k in before}
    state["layers.1.neurons.0.b"] = bad  # the last parameter: earlier ones must not be written either
    with pytest.raises((TypeError, ValueError), match=r"layers\.1\.neurons\.0\.b"):
        model.load_state_dict(state)  # type: ignore[arg-type]
    assert model.state_dict() == before


def test_load_state_dict_needs_a_mapping() -> None:
    with pytest.raises(TypeError, match="mapping"):
        Layer(2, 2, seed=0).load_state_dict([1.0, 2.0])  # type: ignore[arg-type]
