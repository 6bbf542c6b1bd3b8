"""The distributions: the sdist holds what the test suite and the set-up need, the wheel holds only
our packages (with py.typed) and, installed, runs every demo.

One build per session (module fixture): a copy of the source tree, so that no stale
``build/`` or ``*.egg-info`` of the working tree leaks into the result, then
``python -m build --no-isolation`` (sdist first, then the wheel built from that sdist).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

pytest.importorskip("build", reason="building the distributions needs the 'build' package (dev extra)")
pytest.importorskip("setuptools", reason="building the distributions needs setuptools (dev extra)")
pytest.importorskip("wheel", reason="building the distributions needs wheel (dev extra)")

ROOT = Path(__file__).resolve().parent.parent
NAME = "micrograd_next"
PACKAGES = ("micrograd", "nn")  # the wheel's top level: the demos are applications, run from a clone
# Never part of a distribution: environments, caches, build output, benchmark downloads.
SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "out",
    "site",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
}
SKIP_DIRS |= {
    ".ruff_cache",
    ".hypothesis",
    ".micrograd-0.1.0",
    ".strands-microgpt-0.1.0",
    ".ipynb_checkpoints",
    "node_modules",
}
TOP_FILES = {
    "LICENSE",
    "README.md",
    "Makefile",
    "setup.cfg",
    "pyproject.toml",
    "MANIFEST.in",
    "ruff.toml",
    "mkdocs.yml",
}


def source_files() -> list[PurePosixPath]:
    """The project's files as relative paths: the working tree minus what SKIP_DIRS names."""
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in filenames:
            if not name.endswith((".pyc", ".tmp")):
                found.append(PurePosixPath(Path(dirpath, name).relative_to(ROOT).as_posix()))
    return sorted(found)


def needed_by_tests(path: PurePosixPath) -> bool:
    """Whether the sdist must carry this source file for `make test` to run from it."""
    top = path.parts[0]
    if len(path.parts) == 1:
        return str(path) in TOP_FILES
    if top in ("micrograd", "nn"):
        return (
            path.suffix == ".py"
            or path.name == "py.typed"
            or path.parts[:3] == ("micrograd", "viz", "assets")
        )
    if top in ("demos", "tests"):
        return path.suffix == ".py"
    if top == "scripts":
        return path.suffix in (".py", ".sh")
    if top == "playground":  # the playground's sources (scripts/build_playground.py builds it)
        return path.suffix in (".py", ".html", ".css", ".js", ".mjs", ".json")
    if top == "benchmarks":
        return path.suffix in (".py", ".md", ".json")
    if path.parts[:2] == ("docs", "images"):
        return path.suffix == ".png"
    if path.parts[:2] in (("docs", "stylesheets"), ("docs", "overrides")):  # tests/test_docs_browser.py
        return path.suffix in (".css", ".html")
    if path.parts[:2] == ("docs", "notebooks") and len(path.parts) == 3:
        return path.suffix == ".ipynb"  # tests/test_notebooks.py runs them
    if top == "docs" and path.parts[1] in ("pages", "reference"):
        return path.suffix == ".md"  # tests/test_docs.py runs the pages; make docs builds them
    if str(path) in ("docs/index.md", "docs/hooks.py"):
        return True
    return str(path) == ".ci/run"


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(sdist, wheel) built from a clean copy of the source tree."""
    tmp = tmp_path_factory.mktemp("dists")
    src = tmp / "src"
    for rel in source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    out = tmp / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    yield sdist, wheel


def sdist_names(sdist: Path) -> set[PurePosixPath]:
    with tarfile.open(sdist) as tar:
        members = [PurePosixPath(m.name) for m in tar.getmembers() if m.isfile()]
    return {PurePosixPath(*m.parts[1:]) for m in members}


def test_sdist_holds_everything_the_tests_need(dists: tuple[Path, Path]) -> None:
    names = sdist_names(dists[0])
    needed = {p for p in source_files() if needed_by_tests(p)}
    assert needed - names == set()
    for must in ("tests/dag_recipes.py", "tests/graphviz_support.py", "scripts/setup.sh", "LICENSE"):
        assert PurePosixPath(must) in names
    assert any(p.parts[:2] == ("docs", "images") for p in names)
    assert PurePosixPath("docs/notebooks/02_solutions.ipynb") in names
    junk = [p for p in names if set(p.parts) & SKIP_DIRS or p.suffix == ".pyc"]
    assert junk == []


@pytest.mark.slow  # collects every test module from the unpacked sdist: tens of seconds
def test_test_suite_collects_from_the_sdist(dists: tuple[Path, Path], tmp_path: Path) -> None:
    with tarfile.open(dists[0]) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+: refuse unsafe members
            tar.extractall(tmp_path, filter="data")
        else:
            tar.extractall(tmp_path)
    (unpacked,) = tmp_path.iterdir()
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    check = [sys.executable, "-c", "import micrograd, nn, demos, tests; print(micrograd.__file__)"]
    proc = subprocess.run(check, capture_output=True, text=True, cwd=unpacked, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).is_relative_to(unpacked)  # the sdist's engine, not the working tree's
    collect = [
        sys.executable,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-rs",
        "-p",
        "no:cacheprovider",
        "tests",
    ]
    proc = subprocess.run(collect, capture_output=True, text=True, cwd=unpacked, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]  # a missing helper is an error
    lines = proc.stdout.splitlines()
    collected = {line.split("::")[0] for line in lines if "::" in line}
    # A module skipped as a whole (torch absent, say) is listed by -rs as "SKIPPED [n] tests/x.py:LINE: why".
    skipped = {m.group(1) for line in lines if (m := re.match(r"SKIPPED \[\d+\] (tests/\S+?\.py):", line))}
    modules = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py")}
    assert modules - collected - skipped == set()


def test_wheel_holds_only_our_packages(dists: tuple[Path, Path]) -> None:
    with zipfile.ZipFile(dists[1]) as whl:
        names = [PurePosixPath(n) for n in whl.namelist()]
        info = f"{NAME}-0.2.0.dist-info"
        metadata = whl.read(f"{info}/METADATA").decode()
    tops = {p.parts[0] for p in names}
    assert tops == {*PACKAGES, f"{NAME}-0.2.0.dist-info"}
    for package in ("micrograd", "nn"):
        assert PurePosixPath(package, "py.typed") in names
    for rel in source_files():
        if rel.parts[0] in PACKAGES and (
            rel.suffix == ".py" or rel.parts[:3] == ("micrograd", "viz", "assets")
        ):
            assert rel in names
    assert any(p.parts[0] == info and p.name == "LICENSE" for p in names)  # licenses/ in setuptools >= 68.1
    assert not any(p.name == "entry_points.txt" for p in names)  # no demo scripts: see setup.cfg
    assert "Provides-Extra: demos" in metadata
    assert "License: MIT" in metadata or "License-Expression: MIT" in metadata


def test_installed_wheel_trains_and_draws_without_the_repository(
    dists: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target"]
    proc = subprocess.run([*pip, str(target), str(dists[1])], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    work = tmp_path / "elsewhere"
    work.mkdir()
    script = (
        "import importlib.util, micrograd, nn\n"
        "from micrograd.nn import MLP\n"
        "model = MLP(2, [4, 1])\n"
        "loss = (model([1.0, -2.0]) - 1.0) ** 2\n"
        "loss.backward()\n"
        "assert all(p.grad == p.grad for p in model.parameters())\n"
        "print(micrograd.__file__, nn.__file__, importlib.util.find_spec('demos'))\n"
        "print(micrograd.explore(loss).html[:15])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=work, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    files, page = proc.stdout.splitlines()
    *paths, demos = files.split()
    assert all(Path(f).is_relative_to(target) for f in paths) and demos == "None"  # no demos package
    assert page == "<!DOCTYPE html>"  # the explorer's assets came along


# ---- the package index's page: project URLs, authors, a long description whose links work ----


def project_homes() -> tuple[str, str]:
    """(site_url, repo_url) of mkdocs.yml: the documentation site and the repository."""
    config = (ROOT / "mkdocs.yml").read_text()
    site, repo = (
        re.search(rf"^{key}:\s*(\S+)\s*$", config, re.MULTILINE) for key in ("site_url", "repo_url")
    )
    assert site and repo, "mkdocs.yml names no site_url or repo_url"
    return site.group(1), repo.group(1)


def markdown_targets(markdown: str) -> tuple[list[str], list[str]]:
    """(every link and image target, every reference used without a definition) of ``markdown``,
    code blocks and code spans left out (their brackets are Python's, not links)."""
    text = re.sub(r"^(```+).*?^\1\s*$", "", markdown, flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"(`+).+?\1", "", text, flags=re.DOTALL)
    defined = dict(re.findall(r"^\s{0,3}\[([^\]]+)\]:\s*(\S+)", text, flags=re.MULTILINE))
    inline = re.findall(r"\]\(\s*<?([^)\s>]+)", text)
    html = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", text)
    used = re.findall(r"\]\[([^\]]+)\]", text)
    return [*inline, *html, *defined.values()], [name for name in used if name not in defined]


def project_file(url: str) -> Path | None:
    """The file of this repository that ``url`` shows (a site page is its Markdown source or
    notebook), or None when the URL is not one of the project's."""
    site, repo = project_homes()
    raw = repo.replace("https://github.com/", "https://raw.githubusercontent.com/") + "/main/"
    for prefix in (f"{repo}/blob/main/", f"{repo}/tree/main/", raw):
        if url.startswith(prefix):
            return ROOT / url.removeprefix(prefix)
    if url.startswith(site):
        page = url.removeprefix(site).removesuffix(".html")
        if page.startswith("notebooks/"):
            return ROOT / "docs" / f"{page}.ipynb"
        return ROOT / "docs" / f"{page}.md"
    return None


def test_readme_links_and_images_are_absolute_and_name_files_of_the_project() -> None:
    """The README is the package index's long description: a relative link or image there points
    into the index itself and breaks."""
    targets, undefined = markdown_targets((ROOT / "README.md").read_text())
    assert undefined == []
    assert targets, "the README has no links: this test would check nothing"
    assert [t for t in targets if not t.startswith("https://")] == []
    ours = {t: project_file(t) for t in targets}
    assert any(ours.values())
    assert [t for t, path in ours.items() if path is not None and not path.exists()] == []


def test_wheel_metadata_has_project_urls_authors_and_an_absolute_long_description(
    dists: tuple[Path, Path],
) -> None:
    with zipfile.ZipFile(dists[1]) as whl:
        metadata = whl.read(f"{NAME}-0.2.0.dist-info/METADATA").decode()
    headers, _, description = metadata.partition("\n\n")
    fields = [line.split(": ", 1) for line in headers.splitlines() if ": " in line]
    urls = dict(value.split(", ", 1) for key, value in fields if key == "Project-URL")
    site, repo = project_homes()
    assert urls == {"Documentation": site, "Source": repo, "Issues": f"{repo}/issues"}
    # The authors are the copyright holders the LICENSE names.
    holder = re.search(
        r"^Copyright \(c\) \d{4}(?:-\d{4})? (.+)$", (ROOT / "LICENSE").read_text(), re.MULTILINE
    )
    assert holder and ["Author", holder.group(1).strip()] in fields
    assert "Description-Content-Type: text/markdown" in headers
    assert description.startswith("# micrograd-next")
    targets, undefined = markdown_targets(description)
    assert undefined == [] and targets
    assert [t for t in targets if not t.startswith("https://")] == []
    assert any(t.endswith(".png") for t in targets)  # the image is there, absolute
