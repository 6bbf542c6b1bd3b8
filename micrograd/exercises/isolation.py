"""Where a grader runs the learner's code so that a stop cannot be swallowed: in a forked child
process the parent can kill.

The in-process time limit (``time_limit``) raises an exception inside the learner's code, and a
bare ``except:`` in a learner's loop catches it: the loop goes on, and the grader would never come
back.  So on Linux ``check`` and ``check_engine`` run the learner's code in a child made with
``os.fork`` (``forked``), which shares everything the learner defined (a class typed into a
notebook cell included, which another interpreter could not import).  The parent waits for each
answer at most ``hard_limit(seconds)``, then kills the child (SIGKILL cannot be caught) and
reports the call that ran out of time.  The child still runs the in-process limit, so an
ordinary endless loop is stopped there and reported by the child itself; only a swallowed stop
needs the kill.

Elsewhere (Windows, macOS, where fork is unsafe with the system's frameworks, or the browser's
Python) ``available()`` is False and the learner's code runs in the process, under the
in-process limit.

>>> available() in (True, False)
True
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["available", "flush", "hard_limit"]


def available() -> bool:
    """Whether the learner's code runs in a child process here: Linux's fork."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def hard_limit(seconds: float) -> float:
    """When the parent kills the child: the in-process stop has had its chance (at ``seconds``),
    with a margin for a call that is just ending, and within twice the limit."""
    return seconds * 1.5 + min(0.25, seconds / 2)


def flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
