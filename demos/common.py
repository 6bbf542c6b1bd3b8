"""``demos.common``: ``micrograd.demos.common``, the demos' shared helpers, the same module."""

import sys

from micrograd.demos import common

sys.modules[__name__] = common  # imported: this name is the demos' shared helpers themselves
