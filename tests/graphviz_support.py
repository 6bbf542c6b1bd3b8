"""Whether Graphviz's `dot` executable is here, for the tests that render pictures."""

from __future__ import annotations

import pytest

graphviz = pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")


def has_dot() -> bool:
    try:
        graphviz.version()
    except graphviz.ExecutableNotFound:
        return False
    return True


needs_dot = pytest.mark.skipif(not has_dot(), reason="Graphviz's `dot` executable is not on PATH")
