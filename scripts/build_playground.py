"""Build the docs site's playground into a folder: ``python scripts/build_playground.py OUT``.

``make docs`` runs it (docs/hooks.py puts OUT into the site as ``playground/``) and so do the
playground's browser tests.  It needs npm and nothing from the network at run time:

1. Pyodide's runtime, the exact version pinned in ``playground/package.json`` and its lock,
   installed by ``npm ci`` into ``playground/node_modules`` (git-ignored; skipped when that
   version is already there); only the files the runtime loads are copied, into ``OUT/pyodide/``.
2. This project's wheel (micrograd-next, pure Python), built with ``pip wheel`` from a copy of
   the sources (no ``build/`` left in the tree), into OUT beside the page, its files stored rather
   than deflated (the page's workers unpack it faster so).
3. The page (``index.html``, with the wheel's file name and Pyodide's version filled in), its
   stylesheets and scripts, ``runner.py``, the training tab's ``trainer.py`` and ``live_training.py``
   the GPT tab's ``gpt_runner.py`` and the lab's ``lab_runner.py`` and ``lab_grader.py``, from
   ``playground/``; the lab's steps, ``lab_steps.json``, read from notebook 05 and its solutions
   (``playground/lab_steps.py``); the speed ladder's modules (LADDER_FILES) into ``OUT/benchmarks/``.
4. ``names.txt``, the GPT tab's training set: ``nn.datasets.load_names()`` (the census files of
   the PyPI package ``names``, installed here) one a line, written at build time, so the page never
   downloads it.  Pyodide's numpy goes into ``OUT/pyodide/`` too when the installed runtime has its
   wheel (the npm package has none: the tab then trains with the eager engine).
5. ``pyodide/python.snapshot.gz``: Python's memory once started, with micrograd and the three
   workers' runners imported (``playground/snapshot.mjs``, run with Node, which npm brings), so the
   workers restore it instead of starting Python (issue 35: about 1 s to "Python ready" instead
   of 4).  When Node cannot make it the build says why and goes on without it: the
   page then starts Python the usual way, as it also does when the file is missing or damaged.

Every URL the page uses is relative, so OUT works from any static server and after a move.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "playground"
MODULES = SOURCE / "node_modules" / "pyodide"
#: The runtime files Pyodide loads at start (the rest of the npm package is types, maps and consoles).
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PAGE_FILES = (
    "playground.css",
    "playground.js",
    "no-server.js",
    "boot.mjs",
    "runner.mjs",
    "trainer.mjs",
    "trainer.py",
    "live_training.py",
    "training.js",
    "training-link.js",
    "training-draw.js",
    "runner.py",
    "gpt.css",
    "gpt.mjs",
    "gpt-worker.mjs",
    "gpt_runner.py",
    "lab.css",
    "lab.mjs",
    "lab-worker.mjs",
    "lab-grader-worker.mjs",
    "lab_runner.py",
    "lab_grader.py",
)
NAMES = "names.txt"
#: The speed ladder's modules (benchmarks/), which the GPT tab's worker fetches into its Python when
#: "Time the ladder" is pressed, as the package ``benchmarks`` beside gpt_runner.py.
LADDER_FILES = (
    "__init__.py",
    "ladder.py",
    "gpt_workloads.py",
    "gpt_floor.py",
    "report.py",
    "suite.py",
    "playground_ready.py",
)
#: Pyodide packages the GPT tab uses when the runtime folder has them (``compile_loss`` needs numpy).
OPTIONAL_PACKAGES = ("numpy",)
#: The memory snapshot the workers restore, and the page files it has imported (beside micrograd).
#: The GPT tab's worker restores it unless the site ships numpy, a compiled package: it then starts
#: Python itself, as Pyodide's snapshots are made and tested without compiled packages loaded after.
SNAPSHOT = "python.snapshot.gz"
SNAPSHOT_MODULES = ("runner", "live_training", "trainer", "gpt_runner")
WHEEL_SOURCES = ("micrograd", "nn", "setup.cfg", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in")


def pinned_version() -> str:
    """The exact version of the npm package ``pyodide`` in playground/package.json."""
    version = str(json.loads((SOURCE / "package.json").read_text())["dependencies"]["pyodide"])
    if not version[:1].isdigit():
        raise SystemExit(f"build_playground: pin an exact pyodide version in package.json, not {version!r}")
    return version


def install_pyodide(version: str) -> None:
    """``npm ci`` in playground/ unless node_modules already holds that version of pyodide."""
    installed = MODULES / "package.json"
    same = installed.is_file() and json.loads(installed.read_text()).get("version") == version
    if same and all((MODULES / name).is_file() for name in RUNTIME):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "build_playground: npm is not on PATH; it installs Pyodide's runtime (apt-get install npm)"
        )
    command = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
    subprocess.run(command, cwd=SOURCE, check=True, timeout=600)


def build_wheel(out: Path) -> Path:
    """This project's wheel, built from a copy of its sources, into ``out``."""
    with tempfile.TemporaryDirectory(prefix="playground-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        for name in WHEEL_SOURCES:
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, src / name, ignore=ignore)
            else:
                shutil.copy2(path, src / name)
        dist = Path(tmp) / "dist"
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet"]
        subprocess.run([*command, "--wheel-dir", str(dist), str(src)], check=True, timeout=300)
        (wheel,) = dist.glob("*.whl")
        return store(wheel, out / wheel.name)


def store(wheel: Path, target: Path) -> Path:
    """``wheel`` written to ``target`` with its files stored rather than deflated (the same files,
    names and order, so the same wheel to an installer: RECORD hashes the files, not the zip).  The
    page's workers unpack it in JavaScript (boot.mjs), where a stored file is a slice of the download
    and a deflated one costs a DecompressionStream each: ~0.1 s for this wheel's ~100 files."""
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as copy:
        for info in source.infolist():
            data = source.read(info)
            info.compress_type = zipfile.ZIP_STORED
            copy.writestr(info, data)
    return target


def write_names(out: Path) -> Path:
    """The names the GPT tab trains on, one a line, from the installed package ``names``."""
    sys.path.insert(0, str(ROOT))  # this checkout's nn, not an installed one
    try:
        from nn.datasets import load_names
    finally:
        sys.path.remove(str(ROOT))
    path = out / NAMES
    path.write_text("\n".join(load_names()) + "\n", encoding="ascii")
    return path


def write_lab_steps(out: Path) -> Path:
    """``lab_steps.json``, the lab's steps read from notebook 05 (``playground/lab_steps.py``)."""
    spec = importlib.util.spec_from_file_location("lab_steps", SOURCE / "lab_steps.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Path(module.write_steps(out))


def copy_optional_packages(out: Path) -> list[str]:
    """The wheels of OPTIONAL_PACKAGES that the installed runtime has, copied beside it."""
    lock = json.loads((MODULES / "pyodide-lock.json").read_text())
    copied = []
    for name in OPTIONAL_PACKAGES:
        wheel = MODULES / str(lock["packages"].get(name, {}).get("file_name", ""))
        if wheel.is_file():
            shutil.copy2(wheel, out / "pyodide" / wheel.name)
            copied.append(wheel.name)
    return copied


def make_snapshot(out: Path, wheel: Path) -> str:
    """Python's memory snapshot (``snapshot.mjs``, with Node) into ``out/pyodide/``; its URL beside
    the page, or "" (and why, on stderr) when Node cannot make it."""
    node = shutil.which("node")
    if node is None:
        print("build_playground: no memory snapshot: node is not on PATH", file=sys.stderr)
        return ""
    command = [node, str(SOURCE / "snapshot.mjs"), str(out), wheel.name, *SNAPSHOT_MODULES]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        print("build_playground: no memory snapshot: snapshot.mjs ran for 300 s", file=sys.stderr)
        return ""
    if done.returncode != 0 or not (out / "pyodide" / SNAPSHOT).is_file():
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        print(f"build_playground: no memory snapshot: {why}", file=sys.stderr)
        return ""
    return f"pyodide/{SNAPSHOT}"


def build(out: Path) -> Path:
    """The playground in ``out`` (made or emptied first); returns the page's path."""
    version = pinned_version()
    install_pyodide(version)
    if out.exists():
        shutil.rmtree(out)
    (out / "pyodide").mkdir(parents=True)
    for name in RUNTIME:
        shutil.copy2(MODULES / name, out / "pyodide" / name)
    copy_optional_packages(out)
    wheel = build_wheel(out)
    write_names(out)
    write_lab_steps(out)
    for name in PAGE_FILES:
        shutil.copy2(SOURCE / name, out / name)
    (out / "benchmarks").mkdir()
    for name in LADDER_FILES:
        shutil.copy2(ROOT / "benchmarks" / name, out / "benchmarks" / name)
    page = (SOURCE / "index.html").read_text(encoding="utf-8")
    snapshot = make_snapshot(out, wheel)
    page = page.replace("%%WHEEL%%", wheel.name).replace("%%PYODIDE%%", version)
    page = page.replace("%%SNAPSHOT%%", snapshot)
    (out / "index.html").write_text(page, encoding="utf-8")
    return out / "index.html"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder to build the playground into (emptied first)")
    args = parser.parse_args(argv)
    print(f"build_playground: {build(args.out)}")


if __name__ == "__main__":
    main()
