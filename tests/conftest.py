"""The whole suite's set-up.

* Hypothesis's settings: derandomised in CI (``CI`` set, as ``.ci/run`` runs), so that a run on a
  fresh clone is the same run every time; exploring with fresh random seeds locally
  (``--hypothesis-seed N`` replays one), where a new failure is a find to pin with ``@example``.
  ``HYPOTHESIS_PROFILE`` picks a profile by name.
* The tiers: each test that drives a browser, runs a notebook, builds docs pages or runs the demos
  is marked so (tests/tiers.py says how they are found); `make test-fast` leaves those out, and the
  long integration runs marked ``slow`` by hand.
* In parallel (pytest-xdist, ``-n``), what the tests download into the tree is fetched once, before
  the workers start: two workers fetching the same thing would replace each other's folder while
  the other's tests read it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from tests.tiers import kinds_of

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.Function):  # (a doctest is none of the slow kinds)
            for kind in sorted(kinds_of(item.path, item.originalname, item.fixturenames)):
                item.add_marker(kind)


def pytest_configure(config: pytest.Config) -> None:
    in_parallel = config.getoption("dist", "no") != "no"
    if in_parallel and not hasattr(config, "workerinput") and not config.option.collectonly:
        fetch_shared_downloads()


def fetch_shared_downloads() -> None:
    """micrograd 0.1.0, microgpt's engine and Pyodide's npm package, each fetched if missing.  A
    failure is left for the tests that need it to report (each skips or fails saying why)."""
    from benchmarks import install_microgpt, install_reference

    with contextlib.suppress(install_reference.ReferenceUnavailableError):
        install_reference.install(quiet=True)
    with contextlib.suppress(install_microgpt.MicrogptUnavailableError):
        install_microgpt.install()
    script = Path(__file__).resolve().parent.parent / "scripts" / "build_playground.py"
    spec = importlib.util.spec_from_file_location("build_playground", script)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    with contextlib.suppress(SystemExit, OSError, subprocess.SubprocessError):
        builder.install_pyodide(builder.pinned_version())
