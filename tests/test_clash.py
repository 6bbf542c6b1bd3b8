"""`import micrograd` warns once when karpathy's `micrograd` distribution shares the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from micrograd._core.name_clash_warning import MicrogradNameClashWarning, clash_message

ROOT = Path(__file__).resolve().parent.parent


def fake_distribution(folder: Path, dirname: str, name: str, version: str | None = "0.1.0") -> Path:
    """A metadata folder as pip leaves it (dist-info) or as setuptools does (egg-info)."""
    meta = folder / dirname
    meta.mkdir(parents=True)
    fields = f"Metadata-Version: 2.1\nName: {name}\n" + (f"Version: {version}\n" if version else "")
    (meta / ("PKG-INFO" if dirname.endswith(".egg-info") else "METADATA")).write_text(fields)
    return folder


def run(code: str, *path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter, this repository's micrograd first on the path after ``path``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, path), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


IMPORT_TWICE = (
    "import importlib, micrograd, micrograd._core.name_clash_warning as c\n"
    "import micrograd\n"
    "assert c.warn_if_clash() is True\n"  # found again, but the warning is not repeated
    "print(micrograd.Value(2.0) * 3)\n"
)


@pytest.mark.parametrize(
    "dirname", ["micrograd-0.1.0.dist-info", "micrograd-0.1.0.egg-info", "Micrograd-0.1.0.dist-info"]
)
def test_warns_once_with_the_advice(tmp_path: Path, dirname: str) -> None:
    site = fake_distribution(tmp_path / "site", dirname, "micrograd")
    proc = run(IMPORT_TWICE, site, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Value(data=6.0, grad=0.0)\n"  # the warning does not stop the engine
    assert proc.stderr.count(": MicrogradNameClashWarning: ") == 1, proc.stderr
    assert "version 0.1.0" in proc.stderr
    assert str(site) in proc.stderr
    assert "separate virtual environment" in proc.stderr


def test_metadata_without_a_version(tmp_path: Path) -> None:
    site = fake_distribution(tmp_path / "site", "micrograd-0.1.0.dist-info", "micrograd", version=None)
    proc = run("import micrograd", site, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(": MicrogradNameClashWarning: ") == 1, proc.stderr
    assert "version unknown" in proc.stderr


@pytest.mark.parametrize(
    ("dirname", "name"),
    [
        ("micrograd_next-0.2.0.dist-info", "micrograd-next"),  # ourselves
        ("micrograd_extras-1.0.dist-info", "micrograd-extras"),  # a name that only starts alike
    ],
)
def test_silent_without_karpathys_distribution(tmp_path: Path, dirname: str, name: str) -> None:
    site = fake_distribution(tmp_path / "site", dirname, name)
    proc = run("import micrograd", site, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_silent_by_default_and_with_warnings_as_errors(tmp_path: Path) -> None:
    proc = run("import warnings; warnings.simplefilter('error'); import micrograd", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_warning_class_and_message() -> None:
    assert issubclass(MicrogradNameClashWarning, UserWarning)
    message = clash_message("/some/site-packages", "0.1.0")
    assert "'micrograd'" in message and "micrograd-next" in message
    assert "separate virtual environment" in message
    assert "/some/site-packages" in message
