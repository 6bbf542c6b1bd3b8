"""Exercises that check themselves: ``check(fn, like=...)`` tells a student whether the op they
wrote is right, point by point, and why not.

* ``grading``: ``check``, its result (``CheckResult``, a line per check, a table in Jupyter);
* ``time_limit``: every call of the student's code runs under a time limit.

May import: ``engine``, ``func.reverse`` and ``math``; nothing above them.

>>> from micrograd.exercises import check
>>> result = check(lambda x: x.tanh(), like="tanh", quiet=True)
>>> result.verdict
'RIGHT'
"""

from .grading import CheckLine, CheckResult, check

__all__ = ["CheckLine", "CheckResult", "check"]
