"""Install karpathy's micrograd 0.1.0 from PyPI into benchmarks/.micrograd-0.1.0.

It imports as ``micrograd``, like this project, so it never goes into the
virtual environment: the benchmark's workers put this folder on PYTHONPATH.
Does nothing when the right version is already there.

    python -m benchmarks.install_reference [--force]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from .suite import REFERENCE_DIR, REFERENCE_VERSION


def installed_version() -> str | None:
    """The version of micrograd in REFERENCE_DIR, from its dist-info folder, or None."""
    infos = sorted(REFERENCE_DIR.glob("micrograd-*.dist-info"))
    if not infos or not (REFERENCE_DIR / "micrograd" / "engine.py").is_file():
        return None
    return infos[-1].name[len("micrograd-") : -len(".dist-info")]


def install(force: bool = False) -> None:
    """Install micrograd==REFERENCE_VERSION into REFERENCE_DIR unless it is already there."""
    if not force and installed_version() == REFERENCE_VERSION:
        print(f"micrograd {REFERENCE_VERSION} already installed in {REFERENCE_DIR}")
        return
    shutil.rmtree(REFERENCE_DIR, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(REFERENCE_DIR)]
    subprocess.run([*cmd, f"micrograd=={REFERENCE_VERSION}"], check=True)
    if installed_version() != REFERENCE_VERSION:
        raise RuntimeError(f"pip ran, but {REFERENCE_DIR} does not hold micrograd {REFERENCE_VERSION}")
    print(f"installed micrograd {REFERENCE_VERSION} in {REFERENCE_DIR}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--force", action="store_true", help="reinstall even if present")
    args = parser.parse_args(argv)
    try:
        install(force=args.force)
    except (subprocess.CalledProcessError, RuntimeError) as exc:
        print(f"install_reference: could not install micrograd {REFERENCE_VERSION}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
