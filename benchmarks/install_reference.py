"""Install karpathy's micrograd 0.1.0 from PyPI into benchmarks/.micrograd-0.1.0.

Two things come from PyPI: the wheel, installed with ``pip install --target``
(the benchmark's reference engine), and the source distribution, unpacked in
its ``sdist`` folder (only it holds micrograd's own test file, which
``tests/test_micrograd_upstream.py`` runs on this engine).  micrograd 0.1.0
imports as ``micrograd``, like this project, so it never goes into the virtual
environment: the benchmark's workers put this folder on PYTHONPATH, and the
tests load single files from it by path.  Nothing upstream wrote is kept in
this repository.  Does nothing when everything is already there.

    python -m benchmarks.install_reference [--force]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from .suite import REFERENCE_DIR, REFERENCE_VERSION

SDIST = "sdist"  # the folder of REFERENCE_DIR holding the unpacked source distribution

# The upstream files the tests run (paths inside REFERENCE_DIR), with the SHA-256 of micrograd
# 0.1.0's published bytes: a file that differs (a corrupted download, another release) is refused.
UPSTREAM_FILES: dict[str, tuple[str, str]] = {
    "test_engine": (
        f"{SDIST}/micrograd-{REFERENCE_VERSION}/test/test_engine.py",
        "27142177f5badd0f3aa0ae1a78ae91b0017cd08d9e44a3e0f774142c0f53d531",
    ),
    "nn": ("micrograd/nn.py", "f54453501abc4fd38ae724a8b378d6a5d23bfdd0a49c77e619b95f86ad16594d"),
    "engine": ("micrograd/engine.py", "95f19fa3734458d868e067d770f0773027763a2f654900bfbc1df8c5413acf84"),
}

# pip's network settings for these small downloads: an unreachable index fails in
# about a minute at worst, not after pip's default five retries.
_PIP_NETWORK = ["--timeout", "20", "--retries", "1"]


class ReferenceUnavailableError(RuntimeError):
    """micrograd 0.1.0 could not be fetched (no network, no index, pip failed); the message says why."""


class ReferenceMismatchError(RuntimeError):
    """A fetched file is not micrograd 0.1.0's published file (its SHA-256 differs)."""


def installed_version() -> str | None:
    """The version of micrograd in REFERENCE_DIR, from its dist-info folder, or None."""
    infos = sorted(REFERENCE_DIR.glob("micrograd-*.dist-info"))
    if not infos or not (REFERENCE_DIR / "micrograd" / "engine.py").is_file():
        return None
    return infos[-1].name[len("micrograd-") : -len(".dist-info")]


def is_complete(directory: Path | None = None) -> bool:
    """Whether ``directory`` (default REFERENCE_DIR) holds the wheel of REFERENCE_VERSION and the
    unpacked source distribution."""
    directory = REFERENCE_DIR if directory is None else directory
    infos = [p.name for p in directory.glob("micrograd-*.dist-info")]
    return infos == [f"micrograd-{REFERENCE_VERSION}.dist-info"] and all(
        (directory / rel).is_file() for rel, _ in UPSTREAM_FILES.values()
    )


def upstream_file(name: str) -> Path:
    """The path of upstream file ``name`` (a key of UPSTREAM_FILES) after checking its SHA-256.

    FileNotFoundError if it is not installed; ReferenceMismatchError if its bytes are not upstream's.
    """
    rel, digest = UPSTREAM_FILES[name]
    path = REFERENCE_DIR / rel
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `python -m benchmarks.install_reference`")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != digest:
        raise ReferenceMismatchError(
            f"{path} is not micrograd {REFERENCE_VERSION}'s published file (SHA-256 {actual}, "
            f"expected {digest}); reinstall it with `python -m benchmarks.install_reference --force`"
        )
    return path


def _pip(args: list[str], what: str) -> None:
    """Run pip with ``args``; ReferenceUnavailableError with pip's last lines if it fails."""
    cmd = [sys.executable, "-m", "pip", *args, "--quiet", "--no-deps", *_PIP_NETWORK]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line] or lines[-3:]
        detail = " / ".join(errors[-3:]) or f"exit status {proc.returncode}"
        raise ReferenceUnavailableError(f"pip could not {what}: {detail}")


def _unpack(archive: Path, dest: Path) -> None:
    """Unpack the regular files and folders of a .tar.gz into ``dest``; links and absolute or
    ``..`` paths are refused (the archive comes from the network)."""
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if not parts or PurePosixPath(member.name).is_absolute() or ".." in parts:
                raise ReferenceUnavailableError(
                    f"{archive.name}: refusing the archive member {member.name!r}"
                )
            target = dest.joinpath(*parts)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                source = tar.extractfile(member)
                if source is None:
                    raise ReferenceUnavailableError(f"{archive.name}: cannot read {member.name!r}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read())
            else:
                raise ReferenceUnavailableError(
                    f"{archive.name}: refusing the link or device {member.name!r}"
                )


def install(force: bool = False, quiet: bool = False) -> None:
    """Install micrograd==REFERENCE_VERSION (wheel and source distribution) into REFERENCE_DIR
    unless it is already there.

    Everything goes into a staging folder first, which replaces REFERENCE_DIR only when it is
    complete and every file the tests run has upstream's SHA-256: a failed download leaves
    REFERENCE_DIR as it was.  ReferenceUnavailableError when pip cannot fetch the distribution;
    ReferenceMismatchError when it fetched something else.
    """
    if not force and is_complete():
        for name in UPSTREAM_FILES:
            upstream_file(name)
        if not quiet:
            print(f"micrograd {REFERENCE_VERSION} already installed in {REFERENCE_DIR}")
        return
    requirement = f"micrograd=={REFERENCE_VERSION}"
    staging = Path(tempfile.mkdtemp(prefix=f"{REFERENCE_DIR.name}.partial-", dir=REFERENCE_DIR.parent))
    try:
        _pip(["install", "--target", str(staging), requirement], f"install {requirement}")
        with tempfile.TemporaryDirectory() as download:
            _pip(
                ["download", "--no-binary", ":all:", "--dest", download, requirement],
                f"download the source distribution of {requirement}",
            )
            archives = sorted(Path(download).glob("micrograd-*.tar.gz"))
            if len(archives) != 1:
                found = ", ".join(p.name for p in Path(download).iterdir()) or "nothing"
                raise ReferenceUnavailableError(f"pip downloaded {found}, not micrograd's .tar.gz")
            _unpack(archives[0], staging / SDIST)
        if not is_complete(staging):
            raise ReferenceUnavailableError(
                f"pip ran, but did not fetch all of micrograd {REFERENCE_VERSION}"
            )
        for rel, digest in UPSTREAM_FILES.values():
            if hashlib.sha256((staging / rel).read_bytes()).hexdigest() != digest:
                raise ReferenceMismatchError(f"{rel} is not micrograd {REFERENCE_VERSION}'s published file")
        shutil.rmtree(REFERENCE_DIR, ignore_errors=True)
        try:
            os.rename(staging, REFERENCE_DIR)
        except OSError:
            if not is_complete():  # another process installing at the same time is fine
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not quiet:
        print(f"installed micrograd {REFERENCE_VERSION} in {REFERENCE_DIR}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--force", action="store_true", help="reinstall even if present")
    args = parser.parse_args(argv)
    try:
        install(force=args.force)
    except (ReferenceUnavailableError, ReferenceMismatchError, OSError) as exc:
        print(f"install_reference: could not install micrograd {REFERENCE_VERSION}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
