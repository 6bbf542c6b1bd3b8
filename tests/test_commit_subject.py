"""scripts/check_commit_subject.py, the commit-msg hook of .pre-commit-config.yaml: a subject (git's
first paragraph) longer than 72 characters is refused, saying why and how to fix it; git runs it."""

from __future__ import annotations

import doctest
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_commit_subject.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_commit_subject", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_script()


def test_its_examples_hold() -> None:
    failed, tried = doctest.testmod(hook, optionflags=doctest.ELLIPSIS)
    assert tried >= 4 and failed == 0


@pytest.mark.parametrize(
    ("message", "subject"),
    [
        ("a" * 72, "a" * 72),
        ("short\n\nthe body, however long " + "b" * 200, "short"),
        ("\n\n  spaced out  \n", "spaced out"),
        ("# Please enter the commit message\n# Lines starting with '#' are ignored\nfix\n", "fix"),
        ("wrapped\nby hand\n\nbody", "wrapped by hand"),
        ("fix\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n", "fix"),
        ("# ------------------------ >8 ------------------------\n" + "d" * 100, ""),
    ],
)
def test_the_subject_is_gits_first_paragraph(message: str, subject: str) -> None:
    assert " ".join(hook.first_paragraph(message)) == subject
    assert hook.problem(message) is None


def test_a_subject_over_72_characters_is_refused_saying_how_to_fix_it() -> None:
    found = hook.problem("c" * 73 + "\n\nthe body")
    assert found.startswith("the commit subject is 73 characters; at most 72 are allowed.")
    assert "c" * 73 in found and "a blank line, then the detail in the body" in found
    assert "git joins them" not in found
    caret = next(line for line in found.splitlines() if line.rstrip().endswith("over"))
    assert caret.index("^") == 2 + 72  # under the 73rd character of the quoted subject


def test_characters_are_counted_not_bytes_and_wrapping_does_not_hide_a_long_subject() -> None:
    assert hook.problem("é" * 72) is None  # 144 bytes in UTF-8
    assert hook.problem("é" * 73) is not None
    wrapped = hook.problem("w" * 40 + "\n" + "x" * 40 + "\n\nbody")
    assert wrapped is not None and "81 characters" in wrapped and "git joins them" in wrapped


def test_the_autosquash_prefixes_are_not_counted() -> None:
    assert hook.problem("fixup! " + "f" * 72) is None
    assert hook.problem("squash! fixup! " + "f" * 72) is None
    refused = hook.problem("amend! " + "f" * 73)
    assert refused is not None and "73 characters" in refused
    caret = next(line for line in refused.splitlines() if line.rstrip().endswith("over"))
    assert caret.index("^") == 2 + len("amend! ") + 72


def test_another_comment_character() -> None:
    assert hook.problem(";" + "s" * 80 + "\nok", comment=";") is None
    assert hook.problem(";" + "s" * 80 + "\nok") is not None  # "#" by default: the line is the subject


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_the_script_exits_1_with_the_reason_and_where_the_message_is_kept(tmp_path: Path) -> None:
    message = tmp_path / "COMMIT_EDITMSG"
    message.write_text("d" * 100 + "\n")
    done = run_script(str(message))
    assert done.returncode == 1 and done.stdout == ""
    assert "100 characters; at most 72" in done.stderr
    assert f"git commit -e -F {message}" in done.stderr
    message.write_text("a fine subject\n\nand a body\n")
    assert run_script(str(message)).returncode == 0
    missing = run_script(str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "cannot read the commit message" in missing.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_runs_it_as_the_commit_msg_hook(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(tmp_path),
    }

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60)

    repo.mkdir()
    assert git("init", "-q").returncode == 0
    hook_file = repo / ".git" / "hooks" / "commit-msg"
    hook_file.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SCRIPT}" "$1"\n')
    hook_file.chmod(0o755)
    refused = git("commit", "-q", "--allow-empty", "-m", "e" * 73, "-m", "the body")
    assert refused.returncode != 0 and "73 characters; at most 72" in refused.stderr
    assert git("rev-parse", "--verify", "-q", "HEAD").returncode != 0, "the commit was made all the same"
    assert git("commit", "-q", "--allow-empty", "-m", "e" * 72, "-m", "the body").returncode == 0
    assert git("log", "--format=%s").stdout == "e" * 72 + "\n"


def test_pre_commit_installs_it_as_the_commit_msg_hook() -> None:
    yaml = pytest.importorskip("yaml", reason="reading .pre-commit-config.yaml needs PyYAML (docs extra)")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    assert "commit-msg" in config["default_install_hook_types"]
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    ours = hooks["commit-subject"]
    assert ours["entry"].split()[1:] == ["scripts/check_commit_subject.py"]
    assert ours["stages"] == ["commit-msg"]
    others = [name for name, hook in hooks.items() if name != "commit-subject"]
    assert all("commit-msg" not in hooks[name].get("stages", config["default_stages"]) for name in others)
