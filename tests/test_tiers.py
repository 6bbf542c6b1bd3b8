"""The fast tier: the markers of tests/tiers.py, setup.cfg's registration and the Makefile's
test-fast target agree; every file that drives a browser is found; the pre-commit hooks are local."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tiers import FILES, KINDS, chromium_users, drives_a_browser, kinds_of

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
MAKEFILE = (ROOT / "Makefile").read_text()


def make_variable(name: str) -> str:
    found = re.search(rf"^{name} :?= (.*)$", MAKEFILE, re.M)
    assert found, f"the Makefile sets no {name}"
    return found.group(1)


def recipe(target: str) -> str:
    found = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert found, f"the Makefile has no {target} target"
    return found.group(1)


def test_make_test_fast_leaves_out_each_kind_and_setup_cfg_registers_them() -> None:
    assert make_variable("FAST") == " and ".join(f"not {kind}" for kind in KINDS)
    assert '-m "$(FAST)"' in recipe("test-fast")
    assert "-m " not in recipe("test"), "make test runs every test"
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    registered = {line.split(":")[0].strip() for line in config["tool:pytest"]["markers"].splitlines()}
    assert set(KINDS) <= registered
    assert "--strict-markers" in config["tool:pytest"]["addopts"]


def test_every_test_file_that_starts_chromium_is_found() -> None:
    files = sorted(p for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name)
    starting = [p for p in files if re.search(r"selenium|webdriver|\bchromium\(", p.read_text())]
    assert starting, "no test file starts Chromium: the pattern above is out of date"
    assert [p.name for p in starting if not drives_a_browser(p)] == []
    for path in starting:  # each marks a browser test, all of its tests or the ones that start it
        assert path.name.endswith("_browser.py") or chromium_users(path), path.name
    assert [p.name for p in files if p.name.endswith("_browser.py") and not drives_a_browser(p)] == []
    assert set(FILES) <= {p.name for p in files}, "tiers.FILES names a file that is not there"


EXAMPLE = """
import pytest
from tests.browser_support import chromium

@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    d = chromium(tmp_path_factory)
    yield d
    d.quit()

@pytest.fixture
def page(driver, site):
    return driver

@pytest.fixture
def site(tmp_path):
    return tmp_path

def opened(tmp_path_factory):
    return chromium(tmp_path_factory)

def test_in_the_page(page): ...
def test_the_site_alone(site): ...
def test_opens_its_own(tmp_path_factory):
    opened(tmp_path_factory).quit()
"""


def test_a_test_is_a_browser_test_when_a_fixture_or_helper_it_uses_starts_chromium(tmp_path: Path) -> None:
    path = tmp_path / "test_example.py"
    path.write_text(EXAMPLE)
    assert chromium_users(path) == {"driver", "page", "opened", "test_in_the_page", "test_opens_its_own"}
    assert kinds_of(path, "test_in_the_page", ["page", "driver", "site", "tmp_path"]) == {"browser"}
    assert kinds_of(path, "test_opens_its_own", ["tmp_path_factory"]) == {"browser"}
    assert kinds_of(path, "test_the_site_alone", ["site", "tmp_path"]) == set()
    named = tmp_path / "test_example_browser.py"  # a *_browser.py file is browser tests throughout
    named.write_text(EXAMPLE)
    assert kinds_of(named, "test_the_site_alone", ["site", "tmp_path"]) == {"browser"}
    demos = tmp_path / "test_demos.py"  # and a file of tiers.FILES is of its kinds
    demos.write_text("def test_x() -> None: ...\n")
    assert kinds_of(demos, "test_x", []) == {"demo"}


def test_the_fast_tier_collects_no_test_of_a_slow_kind() -> None:
    whole = sorted({*FILES, *(p.name for p in TESTS.glob("test_*_browser.py"))})
    mixed = sorted(p.name for p in TESTS.glob("test_*.py") if drives_a_browser(p) and p.name not in whole)
    fast = ["-m", make_variable("FAST"), *(f"tests/{name}" for name in whole + mixed)]
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", *fast]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]  # 5: nothing collected
    collected = [line.split("::")[0] for line in done.stdout.splitlines() if "::" in line]
    assert [node for node in collected if Path(node).name in whole] == []
    for name in mixed:  # each keeps its tests that start no browser in the fast tier, and only those
        users = chromium_users(TESTS / name)
        lines = [line for line in done.stdout.splitlines() if line.startswith(f"tests/{name}::")]
        tests = {line.split("::")[1].split("[")[0] for line in lines}
        assert tests and not tests & users, (name, tests & users)


def test_the_pre_commit_hooks_are_local_and_run_ruff_and_the_generated_file_check() -> None:
    yaml = pytest.importorskip("yaml", reason="reading .pre-commit-config.yaml needs PyYAML (docs extra)")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"], "a hook from elsewhere would be fetched"
    entries = {hook["id"]: shlex.split(hook["entry"]) for hook in config["repos"][0]["hooks"]}
    assert entries["ruff"][:2] == [".venv/bin/ruff", "check"]
    assert entries["ruff-format"][:2] == [".venv/bin/ruff", "format"]
    script, flag = entries["value-methods"][1:]
    assert flag == "--check" and (ROOT / script).is_file()
    assert "--check" in (ROOT / script).read_text(), f"{script} has no --check mode"


# A plugin for the collection below: after conftest.py has marked the tests (trylast), it writes how
# many tests carry each kind's marker, and how many `slow` ones are outside the demos' file.
COUNTER = """
import json, os
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    kinds = json.loads(os.environ["KINDS"])
    counts = {kind: sum(1 for item in items if item.get_closest_marker(kind)) for kind in kinds}
    counts["slow outside the demos"] = sum(
        1 for item in items if item.get_closest_marker("slow") and item.path.name != "test_demos.py"
    )
    with open(os.environ["COUNTS"], "w") as out:
        json.dump(counts, out)
"""

SMALL_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def test_the_development_page_counts_each_kind_as_make_test_collects_them(tmp_path: Path) -> None:
    """docs/pages/development.md's table of the kinds gives each one's count of tests: the counts of
    a collection of `make test`'s whole suite, so that a test added or moved updates the page."""
    (tmp_path / "count_kinds.py").write_text(COUNTER)
    counts_file = tmp_path / "counts.json"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "KINDS": json.dumps(list(KINDS))}
    env["COUNTS"] = str(counts_file)
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "count_kinds"]
    command += ["-p", "no:cacheprovider", "--doctest-modules", "micrograd", "nn", "tests"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    counts = json.loads(counts_file.read_text())
    page = (ROOT / "docs" / "pages" / "development.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` \| .* \| ([\d,]+) \|$", page, re.M))
    assert sorted(table) == sorted(KINDS), "the page's table has a row for each kind, and no other"
    said_counts = {kind: int(n.replace(",", "")) for kind, n in table.items()}
    assert said_counts == {kind: counts[kind] for kind in KINDS}
    said = re.search(r"Besides the (\w+) tests marked `slow` outside the demos", page)
    assert said, "the page no longer says how many slow tests are outside the demos: update this test"
    assert SMALL_NUMBERS.get(said.group(1)) == counts["slow outside the demos"]
