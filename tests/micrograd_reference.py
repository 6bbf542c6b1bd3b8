"""karpathy's micrograd 0.1.0's own files, fetched from PyPI at test set-up and run on this engine.

``benchmarks.install_reference`` puts micrograd 0.1.0 (wheel and source
distribution) in ``benchmarks/.micrograd-0.1.0``, outside the tracked tree, and
checks the SHA-256 of every file used here.  ``load_upstream`` executes one of
those files as a fresh module: its ``from micrograd.engine import Value`` finds
this project's ``micrograd`` (the only one on ``sys.path``), so upstream's code
runs, unchanged, on our engine.  Without network or package index the callers
are skipped, with pip's reason.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import micrograd.engine
from benchmarks import install_reference
from benchmarks.suite import REFERENCE_DIR, REFERENCE_VERSION, REPO_ROOT


def ensure_installed() -> None:
    """micrograd 0.1.0 in REFERENCE_DIR (fetched now if missing), or skip the test with pip's reason."""
    try:
        install_reference.install(quiet=True)
    except install_reference.ReferenceUnavailableError as exc:
        pytest.skip(f"micrograd {REFERENCE_VERSION} could not be fetched from the package index: {exc}")


def load_upstream(name: str) -> ModuleType:
    """micrograd 0.1.0's file ``name`` (``"nn"``: micrograd/nn.py, ``"test_engine"``: its test file),
    executed as a new module bound to this project's engine; skips the test when it cannot be fetched."""
    ensure_installed()
    # A file whose SHA-256 is not upstream's raises ReferenceMismatchError: a failure, not a skip.
    path = install_reference.upstream_file(name)
    ours = Path(micrograd.engine.__file__).resolve()
    if ours.parent != REPO_ROOT / "micrograd":
        raise RuntimeError(f"`micrograd` is imported from {ours}, not from this project ({REPO_ROOT})")
    if any(Path(entry or ".").resolve() == REFERENCE_DIR for entry in sys.path):
        raise RuntimeError(f"{REFERENCE_DIR} is on sys.path: micrograd 0.1.0 would shadow this engine")
    spec = importlib.util.spec_from_file_location(
        f"micrograd_{REFERENCE_VERSION.replace('.', '_')}_{name}", path
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.Value is not micrograd.engine.Value:
        raise RuntimeError(f"{path} did not bind this project's Value, but {module.Value!r}")
    return module
