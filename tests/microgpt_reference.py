"""karpathy's microgpt engine (its ``Value`` and model) for the tests: ``benchmarks.install_microgpt``
fetches it from PyPI at test set-up; without the package index the tests that need it skip, saying why."""

from __future__ import annotations

from types import ModuleType

import pytest

from benchmarks import install_microgpt


def load_microgpt() -> ModuleType:
    """microgpt's ``engine.py`` as a module of its own, or skip the test with pip's reason."""
    try:
        return install_microgpt.load()
    except install_microgpt.MicrogptUnavailableError as exc:
        if "SHA-256" in str(exc):
            raise  # a file that is not the published one: a failure, not a skip
        pytest.skip(str(exc))
