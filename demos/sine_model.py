"""``python -m demos.sine_model``: the demo ``micrograd.demos.sine_model`` itself."""

import sys
from pathlib import Path

if not __package__:  # run as a file: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from micrograd.demos import sine_model as demo

if __name__ == "__main__":
    raise SystemExit(demo.main())
sys.modules[__name__] = demo  # imported: this name is the demo module itself
