"""micrograd 0.1.0's own tests (``test/test_engine.py`` of its PyPI source distribution), run on this engine.

The file is fetched at test set-up (``tests/micrograd_reference.py``) and executed
unchanged: its ``from micrograd.engine import Value`` is this project's Value, and
its checks against PyTorch are upstream's, as upstream wrote them.
"""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from tests.micrograd_reference import load_upstream

# The test functions of micrograd 0.1.0's test file (a fact about that file, checked below).
UPSTREAM_TESTS = ("test_sanity_check", "test_more_ops")


@pytest.fixture(scope="module")
def upstream_tests() -> ModuleType:
    pytest.importorskip("torch", reason="micrograd 0.1.0's own tests compare against PyTorch")
    return load_upstream("test_engine")


def test_every_upstream_test_is_run(upstream_tests: ModuleType) -> None:
    found = [
        name for name, f in vars(upstream_tests).items() if name.startswith("test") and inspect.isfunction(f)
    ]
    assert sorted(found) == sorted(UPSTREAM_TESTS)


@pytest.mark.parametrize("name", UPSTREAM_TESTS)
def test_upstream(upstream_tests: ModuleType, name: str) -> None:
    getattr(upstream_tests, name)()
