"""Every command a ```bash block of the README or the docs shows is there: its make target exists and
dry-runs, its ``python -m`` module resolves (and ``--help`` works where it is cheap), its files exist.
The ```python blocks are run by tests/test_readme.py and tests/test_docs.py; these are their shell twin.

Each line is checked by the rule for its program; a program with no rule fails the test, so a new
kind of command in the docs needs a rule here before it can be shown."""

from __future__ import annotations

import configparser
import importlib.util
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import micrograd

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "docs" / "index.md", *(ROOT / "docs" / "pages").glob("*.md")])
FENCE = re.compile(r"^```bash\n(.*?)^```", flags=re.MULTILINE | re.DOTALL)
# Options whose value is a path the command makes, not one that must exist.
OUTPUT_OPTIONS = {"-w", "--wheel-dir", "--out", "--site-dir", "--find-links", "--json"}
OWN_MODULES = ("demos", "benchmarks", "scripts", "micrograd", "nn")  # cheap to ask for --help


@dataclass
class Block:
    """One ```bash block: where it is, its commands, and what its earlier lines made."""

    where: str
    lines: list[tuple[int, str]]
    made: set[str] = field(default_factory=set)  # folders an earlier line writes (pip wheel -w dist)
    venvs: set[str] = field(default_factory=set)  # virtual environments an earlier make target creates


def bash_blocks() -> list[Block]:
    blocks = []
    for document in DOCUMENTS:
        text = document.read_text()
        for match in FENCE.finditer(text):
            first = text.count("\n", 0, match.start(1)) + 1
            lines = [(first + i, line) for i, line in enumerate(match.group(1).splitlines()) if line.strip()]
            blocks.append(Block(f"{document.relative_to(ROOT)}:{first}", lines))
    return blocks


BLOCKS = bash_blocks()


def run(cmd: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False)


def makefile_default(name: str) -> str:
    match = re.search(rf"^{name} \?= (\S+)$", (ROOT / "Makefile").read_text(), flags=re.MULTILINE)
    assert match, f"the Makefile sets no default for {name}"
    return match.group(1)


def check_make(words: list[str], block: Block) -> None:
    targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    assert targets, "make with no target: name the target the reader should run"
    makefile = (ROOT / "Makefile").read_text()
    for target in targets:
        rule = re.search(rf"^{re.escape(target)}:", makefile, flags=re.MULTILINE)
        assert rule, f"the Makefile has no target {target}"
    # -B: what the target runs on a fresh machine, though this one may have made it already
    dry = run(["make", "-n", "-B", *words[1:]])
    assert dry.returncode == 0, f"make -n {' '.join(words[1:])} failed:\n{dry.stderr}"
    for module in re.findall(r"-m (\w[\w.]*)", dry.stdout):  # the Python modules its recipes run
        assert importlib.util.find_spec(module), f"make {targets[0]} runs python -m {module}: no such module"
    venv = makefile_default("VENV")
    if f"VENV={venv} bash scripts/setup.sh" in dry.stdout:
        block.venvs.add(venv)


def check_paths(args: list[str], block: Block) -> None:
    """Arguments that name a file or folder exist (outputs excepted); an output folder is remembered."""
    for i, arg in enumerate(args):
        if i and args[i - 1] in OUTPUT_OPTIONS:
            block.made.add(arg)
            continue
        if arg.startswith("-") or ("/" not in arg and arg != "."):
            continue
        assert (ROOT / arg).exists(), f"{arg} does not exist in the repository"


def check_pip(args: list[str], comment: str, block: Block) -> None:
    command = args[0]
    helped = run([sys.executable, "-m", "pip", command, "--help"])
    assert helped.returncode == 0, f"pip has no command {command}: {helped.stderr}"
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    name = config["metadata"]["name"]
    if command == "wheel" and "." in args:
        assert (ROOT / "pyproject.toml").is_file(), "pip wheel . needs the project's pyproject.toml"
        for wheel in re.findall(r"(\S+\.whl)", comment):  # the wheel the comment says it makes
            expected = f"{name.replace('-', '_')}-{micrograd.__version__}-py3-none-any.whl"
            assert Path(wheel).name == expected, f"the comment names {wheel}; pip wheel makes {expected}"
    if command == "install":
        for requirement in (a for a in args[1:] if not a.startswith("-")):
            match = re.fullmatch(r"([\w.-]+)(?:\[([\w,-]+)\])?", requirement)
            assert match, f"cannot read the requirement {requirement}"
            if match.group(1) != name:
                continue  # a package of the index (jupyterlab): pip resolves it
            extras = dict(config["options.extras_require"])
            for extra in (match.group(2) or "").split(","):
                assert not extra or extra in extras, f"{name} has no extra [{extra}]: it has {sorted(extras)}"
            links = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--find-links"]
            assert links and all(link in block.made for link in links), (
                f"pip install {requirement} from the project needs --find-links to the folder an "
                "earlier line builds the wheel into"
            )
    check_paths(args[1:], block)


def check_python(words: list[str], comment: str, block: Block) -> None:
    interpreter = words[0]
    if interpreter not in ("python", "python3"):
        venv = str(Path(interpreter).parent.parent)
        assert venv in block.venvs, f"{interpreter}: no earlier line of this block creates {venv}"
    assert words[1:2] == ["-m"] and len(words) > 2, "show python as `python -m module ...`"
    module, args = words[2], words[3:]
    assert importlib.util.find_spec(module), f"python -m {module}: no such module"
    if module == "pip":
        check_pip(args, comment, block)
        return
    if module.split(".")[0] in OWN_MODULES:
        helped = run([sys.executable, "-m", module, "--help"])
        assert helped.returncode == 0, f"python -m {module} --help failed:\n{helped.stderr}"
        options = set(re.findall(r"(--[\w-]+)", helped.stdout))
        for arg in args:
            if arg.startswith("--"):
                assert arg.split("=")[0] in options, f"python -m {module} has no option {arg}"
    check_paths(args, block)


def check_line(line: str, block: Block) -> None:
    code, _, comment = line.partition("#")
    words = shlex.split(code)
    if words[0] == "make":
        check_make(words, block)
    elif Path(words[0]).name in ("python", "python3"):
        check_python(words, comment, block)
    else:
        raise AssertionError(f"no rule for the program {words[0]}: add one to tests/test_doc_commands.py")


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_every_command_of_a_bash_block_is_there(block: Block) -> None:
    for number, line in block.lines:
        try:
            check_line(line, block)
        except AssertionError as error:
            raise AssertionError(f"{block.where.split(':')[0]}:{number}: {line.strip()}\n{error}") from None


def test_the_docs_show_bash_blocks() -> None:
    assert {b.where.split(":")[0] for b in BLOCKS} >= {"README.md", "docs/pages/demos.md"}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["make no-such-target"], "the Makefile has no target no-such-target"),
        (["python -m demos.no_such_demo"], "no such module"),
        (["python -m demos.moons --no-such-option"], "has no option --no-such-option"),
        (["python -m jupyter lab docs/no_such_folder"], "docs/no_such_folder does not exist"),
        ([".venv/bin/python -m pip --version"], "no earlier line of this block creates .venv"),
        (["python -m pip no-such-command"], "pip has no command no-such-command"),
        (["python -m pip wheel -w dist .  # dist/micrograd_next-0.0.1-py3-none-any.whl"], "pip wheel makes"),
        (
            ["python -m pip wheel -w dist .", 'python -m pip install "micrograd-next[ui]" --find-links dist'],
            "has no extra [ui]",
        ),
        (['python -m pip install "micrograd-next[demos]"'], "needs --find-links"),
        (["micrograd-moons --out out"], "no rule for the program micrograd-moons"),
    ],
)
def test_a_command_that_is_not_there_fails_with_its_reason(lines: list[str], message: str) -> None:
    block = Block("test", list(enumerate(lines)))
    with pytest.raises(AssertionError, match=re.escape(message)):
        for _, line in block.lines:
            check_line(line, block)
