"""The import name ``micrograd`` is shared with karpathy's distribution of the same name.

Both install a top-level ``micrograd`` package, so in one environment they
overwrite each other's files (whichever pip installed last wins, and
uninstalling either breaks the other) while ``pip check`` stays silent.
Importing this module warns once when karpathy's distribution's metadata is
found on ``sys.path``; ``micrograd/__init__.py`` imports it first thing.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import importlib.metadata

# karpathy's distribution on PyPI; ours is "micrograd-next", which importlib.metadata
# never confuses with it (names are compared after normalisation, not by prefix).
OTHER_DISTRIBUTION = "micrograd"

_warned = False


class MicrogradNameClashWarning(UserWarning):
    """karpathy's ``micrograd`` distribution is installed where micrograd-next is."""


def clash_message(location: str, version: str) -> str:
    """The advice given when karpathy's distribution shares this environment."""
    return (
        f"karpathy's 'micrograd' distribution (version {version}, in {location}) is installed in "
        "the same environment as micrograd-next. Both provide the import name 'micrograd', so they overwrite "
        "each other's files and 'import micrograd' may load either one. Use a separate virtual environment "
        "for each: python -m venv .venv && .venv/bin/pip install micrograd-next "
        "(or 'pip uninstall micrograd micrograd-next' here, then reinstall micrograd-next alone)."
    )


def _may_be_installed() -> bool:
    """A cheap first look: does a ``sys.path`` folder hold ``micrograd-*.dist-info`` or ``.egg-info``?

    importlib.metadata costs as much to import as the whole engine, so it is loaded only
    when a folder holds such a name (or a ``sys.path`` entry is not a plain folder).
    """
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:  # a zip file on sys.path: only importlib.metadata can tell
            return True
        except OSError:  # missing or unreadable: nothing installed there
            continue
        for name in names:
            lowered = name.lower()
            if lowered.startswith(OTHER_DISTRIBUTION + "-") and lowered.endswith((".dist-info", ".egg-info")):
                return True
    return False


def find_other_distribution() -> importlib.metadata.Distribution | None:
    """karpathy's distribution's metadata if it is on ``sys.path``, else None."""
    if not _may_be_installed():
        return None
    import importlib.metadata

    try:
        return importlib.metadata.distribution(OTHER_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def warn_if_clash() -> bool:
    """Warn (once per process) if karpathy's distribution is installed here; True if it is."""
    global _warned
    dist = find_other_distribution()
    if dist is None:
        return False
    if not _warned:
        _warned = True
        try:
            version = dist.version or "unknown"
        except KeyError:  # newer Pythons raise for metadata without a Version field
            version = "unknown"
        message = clash_message(str(dist.locate_file("")), version)
        warnings.warn(message, MicrogradNameClashWarning, stacklevel=1)
    return True


warn_if_clash()
