"""karpathy's microgpt engine for the benchmark and the tests: ``python -m benchmarks.install_microgpt``.

microgpt's ``Value`` and model ship in the PyPI package ``strands-microgpt`` 0.1.0 as
``strands_microgpt/engine.py``.  Its ``__init__`` imports a large framework, so the package is
installed with ``pip --no-deps --target`` into ``benchmarks/.strands-microgpt-0.1.0``
(git-ignored) and ``engine.py`` is loaded by its path, never imported as a package, after
checking that its SHA-256 is the published file's.  A failed download leaves nothing behind.
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

BENCH_DIR = Path(__file__).resolve().parent
VERSION = "0.1.0"
FOLDER = BENCH_DIR / f".strands-microgpt-{VERSION}"
ENGINE = "strands_microgpt/engine.py"
SHA256 = "1bddc7bcdccde946474767321fa35f39aa0bdac5439c0449d794963d493cde46"


class MicrogptUnavailableError(RuntimeError):
    """The package could not be fetched (no network or index, pip failed); the message says why."""


def install() -> Path:
    """``engine.py`` of strands-microgpt, installed into FOLDER if missing (whole or not at all)."""
    path = FOLDER / ENGINE
    if path.is_file():
        return path
    FOLDER.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{FOLDER.name}.partial-", dir=FOLDER.parent))
    try:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(staging)]
        cmd += ["--timeout", "20", "--retries", "1", f"strands-microgpt=={VERSION}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if "ERROR" in ln] or ["pip failed"]
            raise MicrogptUnavailableError(f"strands-microgpt {VERSION} could not be fetched: {lines[-1]}")
        if not (staging / ENGINE).is_file():
            raise MicrogptUnavailableError(f"strands-microgpt {VERSION} has no {ENGINE}")
        shutil.rmtree(FOLDER, ignore_errors=True)
        staging.rename(FOLDER)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def load() -> ModuleType:
    """microgpt's ``engine.py`` as a module of its own (``Value``, ``MicroGPT``, ``_softmax``, ...)."""
    path = install()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        raise MicrogptUnavailableError(
            f"{path} is not strands-microgpt {VERSION}'s engine.py (SHA-256 {digest})"
        )
    spec = importlib.util.spec_from_file_location("microgpt_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    try:
        print(f"microgpt's engine: {install()}")
    except MicrogptUnavailableError as exc:
        print(f"install_microgpt: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
