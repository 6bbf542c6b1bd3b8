"""Install PyTorch's CPU build (the tests' second oracle) into the running interpreter's environment.

Never a CUDA build: on Linux, PyPI's plain ``torch`` wheel is the multi-GB CUDA build, so
every candidate is first resolved with ``pip install --dry-run --report`` and installed
only if the resolution is CPU-only (no ``nvidia-*`` or ``triton`` packages, no ``+cu``/``+rocm``
build). Tried in order, the first acceptable one wins:

1. ``torch==VERSION+cpu`` from pip's configured sources (a wheel folder or mirror that has it);
2. ``torch==VERSION+cpu`` with PyTorch's CPU index (https://download.pytorch.org/whl/cpu) added;
3. ``torch==VERSION`` from pip's configured sources, if what it resolves to is CPU-only
   (macOS and Windows wheels on PyPI are).

    python scripts/install_torch.py [--version 2.13.0]

Exit status 0 when a CPU build is installed (or already was), 1 when none can be found.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_VERSION = "2.13.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# A resolution holding any of these pulls CUDA (or ROCm) libraries.
GPU_PREFIXES = ("nvidia-", "triton", "pytorch-triton")


@dataclass(frozen=True)
class Candidate:
    """One way to ask pip for torch: a requirement and extra pip options."""

    requirement: str
    pip_options: tuple[str, ...] = ()
    why: str = ""


def candidates(version: str, platform: str = sys.platform) -> list[Candidate]:
    """The ways to try, in order (see the module docstring)."""
    cpu = f"torch=={version}+cpu"
    found: list[Candidate] = []
    if platform.startswith("linux"):
        found.append(Candidate(cpu, (), "the CPU build from pip's configured sources"))
        cpu_index = ("--extra-index-url", CPU_INDEX, "--retries", "1", "--timeout", "30")
        found.append(Candidate(cpu, cpu_index, f"the CPU build from {CPU_INDEX}"))
    found.append(Candidate(f"torch=={version}", (), "the plain release, accepted only if it is CPU-only"))
    return found


def gpu_problem(report: dict[str, Any]) -> str | None:
    """Why a ``pip install --report`` resolution is not CPU-only, or None if it is."""
    items = report.get("install")
    if not isinstance(items, list):
        return "pip's report lists nothing to install"
    torch_version = None
    for item in items:
        meta = item.get("metadata", {})
        name = str(meta.get("name", "")).lower().replace("_", "-")
        if name.startswith(GPU_PREFIXES):
            return f"it pulls {name} (a GPU library)"
        if name == "torch":
            torch_version = str(meta.get("version", ""))
            requires = [str(r).lower() for r in meta.get("requires_dist") or []]
            if any(r.startswith(GPU_PREFIXES) and "extra ==" not in r for r in requires):
                return f"torch {torch_version} depends on GPU libraries"
    if torch_version is None:
        return "torch is not in the resolution"
    local = torch_version.partition("+")[2]
    if local.startswith(("cu", "rocm")):
        return f"torch {torch_version} is a GPU build"
    return None


def resolve(candidate: Candidate) -> tuple[str | None, str]:
    """(the exact torch version pip would install, None if unusable) and a reason when unusable."""
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"]
        cmd += ["--report", str(report_path), *candidate.pip_options, candidate.requirement]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not report_path.is_file():
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"pip cannot resolve it ({last})"
        report = json.loads(report_path.read_text())
    problem = gpu_problem(report)
    if problem:
        return None, problem
    versions = [
        i["metadata"]["version"] for i in report["install"] if i["metadata"]["name"].lower() == "torch"
    ]
    return versions[0], ""


def installed_torch() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def install(version: str) -> int:
    have = installed_torch()
    if have in (f"{version}+cpu", version) and gpu_problem_installed() is None:
        print(f"install_torch: torch {have} (CPU) is already installed")
        return 0
    for candidate in candidates(version):
        exact, reason = resolve(candidate)
        if exact is None:
            print(f"install_torch: not {candidate.requirement} ({candidate.why}): {reason}", file=sys.stderr)
            continue
        # Install exactly what the dry run accepted: the version with its local label (+cpu).
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", *candidate.pip_options, f"torch=={exact}"]
        if subprocess.run(cmd).returncode == 0:
            print(f"install_torch: installed torch {exact} ({candidate.why})")
            return 0
        print(f"install_torch: pip failed to install torch=={exact}", file=sys.stderr)
    return 1


def gpu_problem_installed() -> str | None:
    """Why the installed torch is not a CPU build, or None if it is (or none is installed)."""
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name.startswith(GPU_PREFIXES):
            return f"{name} is installed"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", default=DEFAULT_VERSION, help=f"(default: {DEFAULT_VERSION})")
    args = parser.parse_args(argv)
    if not args.version or "+" in args.version or "=" in args.version:
        parser.error(f"--version takes a plain release such as {DEFAULT_VERSION}, got {args.version!r}")
    status = install(args.version)
    if status:
        print(f"install_torch: no CPU build of torch {args.version} is reachable", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
