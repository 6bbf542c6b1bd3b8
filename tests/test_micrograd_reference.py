"""How micrograd 0.1.0's own files are fetched and loaded for the tests: refused when altered,
skipped with pip's reason when the package index cannot be reached, nothing half-installed."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from pathlib import Path

import pytest

import micrograd.engine
from benchmarks import install_reference
from tests.micrograd_reference import load_upstream


@pytest.fixture
def unreachable_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """REFERENCE_DIR in tmp_path, and pip pointed at an index nobody listens on (port 9, discard)."""
    reference = tmp_path / "bench" / ".micrograd-0.1.0"
    reference.parent.mkdir()
    monkeypatch.setattr(install_reference, "REFERENCE_DIR", reference)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no find-links or extra indexes from pip.conf
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    for name in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    return reference


def test_unreachable_index_fails_cleanly_and_leaves_nothing(unreachable_index: Path) -> None:
    with pytest.raises(install_reference.ReferenceUnavailableError, match="pip could not install micrograd"):
        install_reference.install(quiet=True)
    assert not unreachable_index.exists()
    assert list(unreachable_index.parent.iterdir()) == []  # no staging folder left behind
    assert install_reference.main([]) == 1


def test_tests_needing_upstream_skip_with_the_reason(unreachable_index: Path) -> None:
    with pytest.raises(pytest.skip.Exception, match="could not be fetched from the package index: pip"):
        load_upstream("nn")


def test_a_file_that_is_not_upstreams_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(install_reference, "REFERENCE_DIR", tmp_path)
    nn = tmp_path / "micrograd" / "nn.py"
    nn.parent.mkdir()
    with pytest.raises(FileNotFoundError, match=r"nn\.py is missing"):
        install_reference.upstream_file("nn")
    nn.write_text("class MLP: ...\n")
    with pytest.raises(
        install_reference.ReferenceMismatchError, match=r"is not micrograd 0\.1\.0's published file"
    ):
        install_reference.upstream_file("nn")
    digest = hashlib.sha256(nn.read_bytes()).hexdigest()
    monkeypatch.setitem(install_reference.UPSTREAM_FILES, "nn", ("micrograd/nn.py", digest))
    assert install_reference.upstream_file("nn") == nn


def test_upstream_code_runs_on_this_engine() -> None:
    nn = load_upstream("nn")
    assert nn.Value is micrograd.engine.Value
    assert nn.__file__ == str(install_reference.REFERENCE_DIR / "micrograd" / "nn.py")
    assert isinstance(nn.Neuron(2)([1.0, 2.0]), micrograd.engine.Value)


@pytest.mark.parametrize("name", ["../evil.py", "/tmp/evil.py", "link"])
def test_unpack_refuses_paths_outside_and_links(name: str, tmp_path: Path) -> None:
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("pkg/link" if name == "link" else name)
        if name == "link":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
        else:
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(install_reference.ReferenceUnavailableError, match="refusing"):
        install_reference._unpack(archive, tmp_path / "out" / "in")
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").rglob("*")) == []
