"""Hypothesis's settings for the whole suite: derandomised in CI (``CI`` set, as ``.ci/run`` runs),
so that a run on a fresh clone is the same run every time; exploring with fresh random seeds
locally (``--hypothesis-seed N`` replays one), where a new failure is a find to pin with
``@example``.  ``HYPOTHESIS_PROFILE`` picks a profile by name."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
