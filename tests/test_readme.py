"""Every ```python block of the READMEs runs, and every output they claim is what it prints.

The convention for claims is in tests/readme_harness.py (and README.md, "Development").
The harness itself is tested below on small made-up Markdown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readme_harness import ReadmeError, parse_blocks, python_blocks, run_markdown

ROOT = Path(__file__).resolve().parent.parent
# The project's READMEs with python blocks (not those of caches or environments in dot-folders).
CANDIDATES = [ROOT / "README.md", *(p for p in ROOT.glob("*/README.md") if not p.parent.name.startswith("."))]
READMES = sorted(p for p in CANDIDATES if python_blocks(p.read_text()))


def test_the_main_readme_has_python_blocks() -> None:
    assert ROOT / "README.md" in READMES


def run_document(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run a Markdown file's blocks (the README or a page of the site) in a fresh folder; skip, saying
    why, when what it draws or compiles needs a tool this machine lacks."""
    text = path.read_text()
    if "render(" in text or "explore(" in text:
        from tests.graphviz_support import has_dot  # skips the test when the graphviz package is absent

        if not has_dot():
            pytest.skip(f"{path.name} draws a graph, and Graphviz's `dot` executable is not on PATH")
    if "compile" in text:
        pytest.importorskip("numpy", reason=f"{path.name}'s compiled replay needs numpy")
    monkeypatch.chdir(tmp_path)
    assert run_markdown(path) == len(python_blocks(text))


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_readme_blocks_run_and_claims_hold(
    readme: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_document(readme, tmp_path, monkeypatch)


# ---- the harness ------------------------------------------------------------------------


def run_text(tmp_path: Path, markdown: str) -> int:
    path = tmp_path / "DOC.md"
    path.write_text(markdown)
    return run_markdown(path)


def fence(lang: str, body: str) -> str:
    return f"```{lang}\n{body}```\n"


def test_claims_and_text_blocks_that_hold(tmp_path: Path) -> None:
    doc = (
        "Intro\n\n"
        + fence("bash", "make demo\n")
        + fence("python", "x = 6 * 7\nprint(x)   # -> 42\nx + 1      # -> 43\n")
        + "then\n\n"
        + fence("python", "for i in range(2):\n    print(i, x)   # -> 0 42\n")
    )
    with pytest.raises(ReadmeError, match=r"claims '0 42', but it prints '0 42\\n1 42'"):
        run_text(tmp_path, doc)
    looped = doc.replace("range(2)", "range(1)")
    assert run_text(tmp_path, looped) == 2
    with_output = fence("python", "print('a  ')\nprint('b')\n") + "\n" + fence("text", "a\nb\n\n")
    assert run_text(tmp_path, with_output) == 1


def test_a_false_claim_names_its_line(tmp_path: Path) -> None:
    doc = "# T\n\n" + fence("python", "x = 2\nx * 3   # -> 7\n")
    with pytest.raises(ReadmeError, match=r"DOC.md:5: claims '7', but it is '6'"):
        run_text(tmp_path, doc)


def test_a_wrong_text_block(tmp_path: Path) -> None:
    doc = fence("python", "print('hello')\n") + fence("text", "goodbye\n")
    with pytest.raises(
        ReadmeError, match="the ```text block says\ngoodbye\nbut the block above it printed\nhello"
    ):
        run_text(tmp_path, doc)


def test_unshown_output_fails(tmp_path: Path) -> None:
    doc = fence("python", "print('shown')   # -> shown\nprint('hidden')\n")
    with pytest.raises(ReadmeError, match="printed output the file does not show"):
        run_text(tmp_path, doc)


def test_claim_on_an_assignment_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReadmeError, match=r"DOC.md:2: a '# ->' claim on a Assign statement"):
        run_text(tmp_path, fence("python", "y = 1   # -> 1\n"))


def test_claim_that_never_runs(tmp_path: Path) -> None:
    with pytest.raises(ReadmeError, match="never ran"):
        run_text(tmp_path, fence("python", "if False:\n    print(1)   # -> 1\n"))


def test_blocks_share_one_namespace_and_errors_point_at_the_markdown(tmp_path: Path) -> None:
    doc = fence("python", "n = 3\n") + "\n" + fence("python", "n   # -> 3\n1 / 0\n")
    with pytest.raises(ZeroDivisionError) as exc:
        run_text(tmp_path, doc)
    assert exc.traceback[-1].lineno + 1 == 7  # `1 / 0` is the seventh line of DOC.md


def test_warnings_fail(tmp_path: Path) -> None:
    doc = fence("python", "import warnings\nwarnings.warn('careful')\n")
    with pytest.raises(ReadmeError, match=r"DOC\.md:3: warns UserWarning: careful"):
        run_text(tmp_path, doc)


def test_unclosed_fence(tmp_path: Path) -> None:
    with pytest.raises(ReadmeError, match="line 1: a ``` block that never closes"):
        parse_blocks("```python\nx = 1\n")


def test_text_block_pairs_only_with_the_python_block_right_before_it() -> None:
    blocks = parse_blocks(fence("python", "x = 1\n") + "prose\n" + fence("text", "1\n"))
    assert blocks[0].output is None
    blocks = parse_blocks(fence("python", "x = 1\n") + "\n\n" + fence("text", "1\n"))
    assert blocks[0].output is blocks[1]
