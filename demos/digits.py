"""``python -m demos.digits``: the demo ``micrograd.demos.digits`` itself."""

import sys
from pathlib import Path

if not __package__:  # run as a file: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from micrograd.demos import digits as demo

if __name__ == "__main__":
    raise SystemExit(demo.main())
sys.modules[__name__] = demo  # imported: this name is the demo module itself
