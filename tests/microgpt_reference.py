"""karpathy's microgpt engine (its ``Value`` and model), fetched from PyPI at test set-up, as a
second implementation to compare ``nn.GPT`` with.

The PyPI package ``strands-microgpt`` 0.1.0 ships microgpt's code as
``strands_microgpt/engine.py``; its ``__init__`` imports a large framework, so it is installed
with ``pip --no-deps --target`` into ``benchmarks/.strands-microgpt-0.1.0`` (git-ignored, outside
the package) and ``engine.py`` is loaded by its path, after checking its SHA-256.  Without the
package index the tests that need it skip, with pip's reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSION = "0.1.0"
FOLDER = ROOT / "benchmarks" / f".strands-microgpt-{VERSION}"
ENGINE = "strands_microgpt/engine.py"
SHA256 = "1bddc7bcdccde946474767321fa35f39aa0bdac5439c0449d794963d493cde46"


def _install() -> None:
    """Install the package into FOLDER, through a staging folder: whole or not at all."""
    FOLDER.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{FOLDER.name}.partial-", dir=FOLDER.parent))
    try:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(staging)]
        cmd += ["--timeout", "20", "--retries", "1", f"strands-microgpt=={VERSION}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if "ERROR" in ln] or ["pip failed"]
            pytest.skip(f"microgpt's engine (strands-microgpt {VERSION}) could not be fetched: {lines[-1]}")
        shutil.rmtree(FOLDER, ignore_errors=True)
        staging.rename(FOLDER)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def load_microgpt() -> ModuleType:
    """microgpt's ``engine.py`` as a module of its own (its ``Value``, ``MicroGPT``, ``_softmax``)."""
    path = FOLDER / ENGINE
    if not path.is_file():
        _install()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        raise AssertionError(
            f"{path} is not strands-microgpt {VERSION}'s published engine.py (SHA-256 {digest})"
        )
    spec = importlib.util.spec_from_file_location("microgpt_reference_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
