"""Save and load: round trips, atomic writes, and a clear error for every kind of bad file."""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

from nn import MLP, ModelFileError, io


@pytest.fixture
def model() -> MLP:
    return MLP(2, [4, 3, 1], activation=["tanh", "relu", "sigmoid"], seed=3)


def test_round_trip_is_exact(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    loaded = MLP.load(str(path))
    assert repr(loaded) == repr(model)
    assert loaded.state_dict() == model.state_dict()  # floats read back bit for bit
    x = [0.3, -0.8]
    assert loaded(x).data == model(x).data  # type: ignore[union-attr]
    doc = json.loads(path.read_text())
    assert (doc["format"], doc["version"]) == ("micrograd-nn", 1)
    assert doc["architecture"] == {
        "type": "MLP",
        "nin": 2,
        "nouts": [4, 3, 1],
        "activations": ["tanh", "relu", "sigmoid"],
    }


def test_load_does_not_touch_global_random(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    io.save(model, path)
    state = random.getstate()
    io.load(path)
    assert random.getstate() == state


def test_load_into_an_existing_model(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    other = MLP(2, [4, 3, 1], activation=["tanh", "relu", "sigmoid"], seed=4)
    io.load_into(other, path)
    assert other.state_dict() == model.state_dict()


def test_wrong_architecture_leaves_the_model_untouched(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    for other in (MLP(2, [4, 3, 1], seed=0), MLP(2, [4, 1], seed=0), MLP(3, [4, 3, 1], seed=0)):
        before = other.state_dict()
        with pytest.raises(ModelFileError, match="architecture mismatch"):
            io.load_into(other, path)
        assert other.state_dict() == before


def test_non_finite_weights_are_refused_and_the_old_file_kept(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    old = path.read_bytes()
    for bad in (math.nan, math.inf, -math.inf):
        model.layers[1].neurons[2].b.data = bad
        with pytest.raises(ValueError, match=r"non-finite weights.*layers\.1\.neurons\.2\.b"):
            model.save(str(path))
        assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["m.json"]


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_crash_mid_save_keeps_the_previous_file(
    tmp_path: Path, model: MLP, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    old = path.read_bytes()
    model.layers[0].neurons[0].b.data = 0.25

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    if failing == "write":
        real_fdopen = os.fdopen

        class FullFile:
            def __init__(self, fd: int, mode: str) -> None:
                self.f = real_fdopen(fd, mode)

            def __enter__(self) -> FullFile:
                return self

            def __exit__(self, *exc: object) -> None:
                self.f.close()

            def write(self, data: bytes) -> None:
                self.f.write(data[: len(data) // 2])  # half the bytes, then the disk is full
                disk_full()

        monkeypatch.setattr(io.os, "fdopen", FullFile)
    else:
        monkeypatch.setattr(io.os, failing, disk_full)
    with pytest.raises(OSError, match="No space left"):
        model.save(str(path))
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["m.json"]  # no temporary file left behind
    assert MLP.load(str(path)).layers[0].neurons[0].b.data == 0.0


def test_saving_over_a_file_keeps_its_permissions(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    model.save(str(path))
    assert path.stat().st_mode & 0o777 == 0o600


def _good_doc(model: MLP) -> dict[str, Any]:
    return {
        "format": "micrograd-nn",
        "version": 1,
        "architecture": {
            "type": "MLP",
            "nin": 2,
            "nouts": [4, 3, 1],
            "activations": ["tanh", "relu", "sigmoid"],
        },
        "parameters": model.state_dict(),
    }


def _mutations() -> list[tuple[str, Any, str]]:
    def arch(key: str, value: Any) -> Any:
        return lambda d: d["architecture"].__setitem__(key, value)

    def param(key: str, value: Any) -> Any:
        return lambda d: d["parameters"].__setitem__(key, value)

    return [
        ("version 2", lambda d: d.__setitem__("version", 2), "unsupported format version 2"),
        ("no version", lambda d: d.pop("version"), "unsupported format version None"),
        ("other format", lambda d: d.__setitem__("format", "keras"), "not a micrograd-nn model file"),
        ("no architecture", lambda d: d.pop("architecture"), '"architecture" field is missing'),
        ("no parameters", lambda d: d.pop("parameters"), '"parameters" field is missing'),
        ("type", arch("type", "CNN"), "unknown architecture type 'CNN'"),
        ("nin", arch("nin", 0), "nin must be a positive int"),
        ("nouts", arch("nouts", [4, "3", 1]), "nouts must be a list of positive ints"),
        ("activations", arch("activations", ["tanh", "relu"]), "activations must name one of"),
        ("more layers", arch("nouts", [4, 3, 2]), r"missing keys \['layers\.2\.neurons\.1\.w\.0'"),
        ("missing", lambda d: d["parameters"].pop("layers.0.neurons.0.b"), "missing keys"),
        ("unexpected", param("layers.0.neurons.9.b", 0.0), r"unexpected keys \['layers\.0\.neurons\.9\.b'\]"),
        ("string", param("layers.0.neurons.0.b", "0.5"), "must be a real number, got str"),
        ("null", param("layers.0.neurons.0.b", None), "must be a real number, got NoneType"),
    ]


@pytest.mark.parametrize(("case", "mutate", "message"), _mutations(), ids=[m[0] for m in _mutations()])
def test_bad_documents_are_named(tmp_path: Path, model: MLP, case: str, mutate: Any, message: str) -> None:
    doc = _good_doc(model)
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=message):
        MLP.load(str(path))
    before = model.state_dict()
    with pytest.raises(ModelFileError):
        io.load_into(model, path)
    assert model.state_dict() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"  \n", "the file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\xff", "not UTF-8"),
        (b"[1, 2, 3]", "not a micrograd-nn model file"),
        (b"hello", "not valid JSON"),
    ],
)
def test_corrupted_files_are_named(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match=message):
        MLP.load(str(path))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_in_a_file_are_refused(tmp_path: Path, model: MLP, literal: str) -> None:
    path = tmp_path / "m.json"
    model.save(str(path))
    text = path.read_text()
    name = "layers.2.neurons.0.b"
    assert f'"{name}": 0.0' in text
    path.write_text(text.replace(f'"{name}": 0.0', f'"{name}": {literal}'))
    with pytest.raises(ModelFileError, match=r"non-finite|not a finite number"):
        MLP.load(str(path))


def test_every_truncation_is_a_clear_error(tmp_path: Path) -> None:
    small = MLP(1, [2, 1], seed=0)
    path = tmp_path / "m.json"
    small.save(str(path))
    data = path.read_bytes()
    for cut in range(len(data.rstrip())):
        path.write_bytes(data[:cut])
        with pytest.raises(ModelFileError):
            MLP.load(str(path))


def test_missing_file_and_non_mlp(tmp_path: Path, model: MLP) -> None:
    with pytest.raises(FileNotFoundError):
        MLP.load(str(tmp_path / "nope.json"))
    with pytest.raises(TypeError, match="writes an MLP"):
        io.save(model.layers[0], tmp_path / "x.json")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("nouts", "claimed"),
    [([10**9, 1], 4_000_000_001), ([4000, 4000, 1], 16_020_001), ([10**6] * 40, 39_000_042_000_000)],
)
def test_a_huge_architecture_is_refused_before_the_model_is_built(
    tmp_path: Path, model: MLP, monkeypatch: pytest.MonkeyPatch, nouts: list[int], claimed: int
) -> None:
    doc = _good_doc(model)
    doc["architecture"].update(nouts=nouts, activations=["relu"] * len(nouts))
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))

    def no_building(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the model was built")

    monkeypatch.setitem(io._MODEL, "cls", no_building)  # the class nn.layers registered
    with pytest.raises(ModelFileError, match=f"has {claimed} parameters but the file holds 31") as info:
        io.load(path)
    assert len(str(info.value)) < 500


def test_error_messages_stay_short_whatever_the_file_holds(tmp_path: Path, model: MLP) -> None:
    cases: list[Any] = [
        lambda d: d["parameters"].update({f"junk.{i}": 0.0 for i in range(100_000)}),
        lambda d: d["parameters"].update({"x" * 100_000: 0.0}),
        lambda d: d["parameters"].update({"layers.0.neurons.0.b": "y" * 100_000}),
        lambda d: d.update(version="v" * 100_000),
        lambda d: d["architecture"].update(type="t" * 100_000),
        lambda d: d["architecture"].update(nouts=["3"] * 100_000),
        lambda d: d["architecture"].update(activations=["a" * 100_000] * 3),
    ]
    for mutate in cases:
        doc = _good_doc(model)
        mutate(doc)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(doc))
        with pytest.raises(ModelFileError) as info:
            MLP.load(str(path))
        assert len(str(info.value)) < 500, str(info.value)[:1000]


def test_deeply_nested_json_is_a_model_file_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ModelFileError, match="nested too deeply"):
        MLP.load(str(path))


def test_save_writes_through_a_symlink_atomically(tmp_path: Path, model: MLP) -> None:
    (tmp_path / "store").mkdir()
    target = tmp_path / "store" / "model.json"
    MLP(2, [4, 3, 1], seed=0).save(str(target))
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    model.save(str(link))
    assert link.is_symlink() and link.resolve() == target
    assert MLP.load(str(target)).state_dict() == model.state_dict()
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["model.json"]  # no temporary file left
    dangling = tmp_path / "next.json"
    dangling.symlink_to(tmp_path / "store" / "next.json")
    model.save(dangling)
    assert (
        dangling.is_symlink()
        and MLP.load(str(tmp_path / "store" / "next.json")).state_dict() == model.state_dict()
    )


def test_saving_into_a_missing_directory_names_the_path(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "missing" / "dir" / "m.json"
    with pytest.raises(FileNotFoundError, match="does not exist") as info:
        model.save(str(path))
    assert info.value.filename == str(path)
    assert str(tmp_path / "missing" / "dir") in str(info.value) and ".tmp" not in str(info.value)
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="is a file, not a directory"):
        model.save(str(tmp_path / "file" / "m.json"))
    assert not (tmp_path / "missing").exists()


def test_an_unwritable_directory_is_named_not_the_temporary_file(
    tmp_path: Path, model: MLP, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def no_new_files(file: Any, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, mode)

    monkeypatch.setattr(os, "open", no_new_files)
    path = tmp_path / "m.json"
    with pytest.raises(PermissionError, match="save: cannot write") as info:
        model.save(str(path))
    assert info.value.filename == str(path) and ".tmp" not in str(info.value)


def test_a_fifo_a_device_and_a_directory_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)  # no writer: reading it would wait forever
    for where in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises((ModelFileError, IsADirectoryError), match=r"not a regular file|Is a directory"):
            io.load(where)


def test_a_file_over_the_size_cap_is_not_read(
    tmp_path: Path, model: MLP, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.json"
    io.save(model, path)
    monkeypatch.setattr(io, "MAX_BYTES", path.stat().st_size - 1)
    with pytest.raises(ModelFileError, match=r"bytes, more than a model file may have"):
        io.load(path)


def test_a_key_given_twice_is_an_error(tmp_path: Path, model: MLP) -> None:
    path = tmp_path / "m.json"
    io.save(model, path)
    text = path.read_text()
    doubled = text.replace('"format":', '"format": "x", "format":', 1)
    path.write_text(doubled)
    with pytest.raises(ModelFileError, match="the key 'format' appears twice"):
        io.load(path)
