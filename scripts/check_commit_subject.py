"""Reject a commit whose subject is longer than 72 characters: the commit-msg hook of
``.pre-commit-config.yaml``.

git passes a commit-msg hook the file holding the message as the user wrote it, before git strips
its comments.  The subject is what ``git log --format=%s`` shows: the first paragraph, its lines
joined with spaces, so a long first line wrapped by hand without a blank line after it is still
one long subject.  ``fixup!``, ``squash!`` and ``amend!`` are left out of the count: ``git rebase
--autosquash`` removes them.

    python scripts/check_commit_subject.py .git/COMMIT_EDITMSG   # exit 1, saying why, when too long
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

LIMIT = 72
AUTOSQUASH = ("fixup! ", "squash! ", "amend! ")
SCISSORS = "------------------------ >8 ------------------------"  # git commit -v: the diff below


def first_paragraph(message: str, comment: str = "#") -> list[str]:
    """The lines of ``message``'s first paragraph, comment lines left out (git strips them after
    the hook), each without the spaces around it.

    >>> first_paragraph("# Please enter the commit message\\n\\nfix a typo\\n\\nthe detail\\n")
    ['fix a typo']
    >>> first_paragraph("a subject wrapped\\nby hand\\n\\nthe body")
    ['a subject wrapped', 'by hand']
    """
    lines: list[str] = []
    for line in message.splitlines():
        if line.startswith(comment):
            if SCISSORS in line:  # what follows is the diff `git commit -v` shows, not the message
                break
            continue
        if line.strip():
            lines.append(line.strip())
        elif lines:
            break
    return lines


def problem(message: str, comment: str = "#") -> str | None:
    """Why ``message``'s subject is refused, or None when it is at most ``LIMIT`` characters.

    >>> problem("tests: a fast tier\\n\\nwhat it leaves out and why") is None
    True
    >>> print(problem("x" * 73))  # doctest: +ELLIPSIS
    the commit subject is 73 characters; at most 72 are allowed.
    ...
    """
    lines = first_paragraph(message, comment)
    text = " ".join(lines)  # git's subject, as `git log --format=%s` shows it
    counted = text
    while counted.startswith(AUTOSQUASH):
        counted = counted.split(" ", 1)[1]
    if len(counted) <= LIMIT:
        return None
    skipped = len(text) - len(counted)  # the autosquash prefix: the caret points past it
    advice = "Write a short subject line (what the commit does), a blank line, then the detail in the body."
    if len(lines) > 1:
        advice += " The lines of the first paragraph are one subject: git joins them."
    return "\n".join(
        [
            f"the commit subject is {len(counted)} characters; at most {LIMIT} are allowed.",
            f"  {text}",
            f"  {' ' * (skipped + LIMIT)}^ from here on it is over",
            advice,
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("message_file", type=Path, help="the file holding the commit message (git passes it)")
    parser.add_argument("--comment-char", default="#", help="git's core.commentChar (default: #)")
    args = parser.parse_args(argv)
    try:
        message = args.message_file.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        parser.error(f"cannot read the commit message {args.message_file}: {e.strerror}")
    found = problem(message, args.comment_char)
    if found is None:
        return 0
    saved = shlex.quote(str(args.message_file))
    print(f"{found}\nYour message is kept in {saved}: `git commit -e -F {saved}` edits it.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
