"""Run a Markdown file's ```python blocks and check every output it claims.

The convention (README.md, "Development", states it for writers):

- Every ```python block runs, top to bottom, in one namespace per file (later blocks use
  the names earlier ones made), in the current working directory (the tests give it a
  fresh temporary one). A block that raises or warns fails.
- A ```text block right after a ```python block (blank lines may separate them) is that
  block's exact standard output.
- ``# -> TEXT`` ending a line claims a value for the statement that ends on that line:
  for ``print(...)``, TEXT is what the call prints (without the final newline; calls made
  from the line several times, as in a loop, join with newlines); for any other expression
  statement, TEXT is its ``repr``, as the interactive interpreter would echo it. A claim on
  any other statement is an error, so that no claim goes unchecked.
- A block without a ```text block may print only what its ``# ->`` claims show.

Lines compare without trailing whitespace; trailing blank lines are ignored. Line
numbers in errors and tracebacks are the Markdown file's own.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")
CLAIM = re.compile(r"#\s*->\s?(.*)$")
PRINT_HOOK = "__readme_print__"
SHOW_HOOK = "__readme_show__"


class ReadmeError(AssertionError):
    """A claim that does not hold, or a block that breaks the convention."""


@dataclass
class Block:
    """A fenced code block: its language, the Markdown line its code starts on, its code."""

    lang: str
    first_line: int
    code: str
    output: Block | None = None  # the ```text block that follows a python block


@dataclass
class Claim:
    """A ``# ->`` claim and the statement it belongs to."""

    line: int
    text: str
    kind: str  # "print" or "repr"
    first_line: int  # the statement's lines
    actual: list[str] = field(default_factory=list)


def parse_blocks(markdown: str) -> list[Block]:
    """The fenced blocks, each python block paired with the ```text block right after it."""
    blocks: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    previous_end = -1  # the closing fence of the block before
    while i < len(lines):
        start = FENCE.match(lines[i])
        if not start:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not re.match(r"^```\s*$", lines[j]):
            j += 1
        if j == len(lines):
            raise ReadmeError(f"line {i + 1}: a ``` block that never closes")
        code = "".join(line + "\n" for line in lines[i + 1 : j])
        block = Block(start.group(1).lower(), i + 2, code)
        previous = blocks[-1] if blocks else None
        between = lines[previous_end + 1 : i]
        if (
            block.lang == "text"
            and previous is not None
            and previous.lang in ("python", "py")
            and previous.output is None
            and all(not line.strip() for line in between)
        ):
            previous.output = block
        blocks.append(block)
        previous_end = j
        i = j + 1
    return blocks


def python_blocks(markdown: str) -> list[Block]:
    return [b for b in parse_blocks(markdown) if b.lang in ("python", "py")]


def _claims(code: str, offset: int) -> dict[int, str]:
    """Markdown line -> claimed text, from the ``# ->`` comments of a block."""
    found = {}
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            m = CLAIM.match(tok.string)
            if m:
                found[tok.start[0] + offset] = m.group(1).rstrip()
    return found


def _is_print(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


class _Instrument(ast.NodeTransformer):
    """Wraps each claimed non-print expression statement in SHOW_HOOK(line, value)."""

    def __init__(self, claims: dict[int, Claim]) -> None:
        self.claims = claims

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        claim = self.claims.get(node.end_lineno or node.lineno)
        if claim is None or claim.kind == "print":
            return node
        hook = ast.Name(id=SHOW_HOOK, ctx=ast.Load())
        call = ast.Call(func=hook, args=[ast.Constant(claim.line), node.value], keywords=[])
        return ast.copy_location(ast.Expr(value=ast.copy_location(call, node)), node)


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")


def run_block(block: Block, namespace: dict[str, Any], filename: str) -> None:
    """Run one python block in ``namespace``; raise ReadmeError listing every claim that fails."""
    offset = block.first_line - 1
    source = "\n" * offset + block.code  # line numbers in tracebacks are the Markdown file's
    tree = ast.parse(source, filename)
    claimed_text = _claims(block.code, offset)
    # The statement a claim belongs to: the innermost one ending on its line (a loop or an
    # `if` ends on the same line as the last statement of its body).
    innermost: dict[int, ast.stmt] = {}
    for node in ast.walk(tree):  # outer statements come before the ones nested in them
        if isinstance(node, ast.stmt) and (node.end_lineno or node.lineno) in claimed_text:
            innermost[node.end_lineno or node.lineno] = node
    claims: dict[int, Claim] = {}
    for end, node in innermost.items():
        if not isinstance(node, ast.Expr):
            raise ReadmeError(
                f"{filename}:{end}: a '# ->' claim on a {type(node).__name__} statement; "
                "claims go on print(...) calls and expression statements only"
            )
        kind = "print" if _is_print(node.value) else "repr"
        claims[end] = Claim(end, claimed_text[end], kind, node.lineno)
    stray = sorted(set(claimed_text) - set(claims))
    if stray:
        raise ReadmeError(f"{filename}:{stray[0]}: a '# ->' claim that ends no statement")
    code = compile(ast.fix_missing_locations(_Instrument(claims).visit(tree)), filename, "exec")

    stdout = io.StringIO()
    claimed_prints: list[str] = []

    def claim_for(line: int) -> Claim | None:
        for claim in claims.values():
            if claim.kind == "print" and claim.first_line <= line <= claim.line:
                return claim
        return None

    def readme_print(*args: Any, **kwargs: Any) -> None:
        if kwargs.get("file") not in (None, sys.stdout):
            builtins.print(*args, **kwargs)
            return
        text = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": text})
        sys.stdout.write(text.getvalue())
        frame = sys._getframe(1)
        claim = claim_for(frame.f_lineno) if frame.f_code.co_filename == filename else None
        if claim is not None:
            claim.actual.append(text.getvalue().removesuffix("\n"))
            claimed_prints.append(text.getvalue())

    def readme_show(line: int, value: object) -> None:
        claims[line].actual.append(repr(value))

    namespace["print"] = readme_print
    namespace[SHOW_HOOK] = readme_show
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
        warnings.simplefilter("always")
        exec(code, namespace)
    del namespace["print"], namespace[SHOW_HOOK]

    problems = [
        f"{filename}:{w.lineno}: warns {w.category.__name__}: {w.message}"
        if w.filename == filename
        else f"{filename}:{block.first_line}: the block warns {w.category.__name__}: {w.message}"
        for w in caught
    ]
    for claim in claims.values():
        got = "\n".join(claim.actual)
        if not claim.actual:
            problems.append(f"{filename}:{claim.line}: claims {claim.text!r}, but the line never ran")
        elif _normal(got) != _normal(claim.text):
            what = "prints" if claim.kind == "print" else "is"
            problems.append(f"{filename}:{claim.line}: claims {claim.text!r}, but it {what} {got!r}")
    printed = stdout.getvalue()
    if block.output is not None:
        if _normal(printed) != _normal(block.output.code):
            problems.append(
                f"{filename}:{block.output.first_line}: the ```text block says\n{block.output.code}"
                f"but the block above it printed\n{printed}"
            )
    elif _normal(printed) != _normal("".join(claimed_prints)):
        problems.append(
            f"{filename}:{block.first_line}: the block printed output the file does not show "
            f"(add a ```text block or '# ->' claims):\n{printed}"
        )
    if problems:
        raise ReadmeError("\n".join(problems))


def run_markdown(path: Path) -> int:
    """Run every python block of ``path`` in order, in one namespace; the number of blocks run."""
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    namespace: dict[str, Any] = {"__name__": "__readme__", "__builtins__": builtins}
    for block in blocks:
        run_block(block, namespace, str(path))
    return len(blocks)
