#!/usr/bin/env bash
# One-time set-up of a fresh machine, in two sizes:
#   scripts/setup.sh demo   a virtual environment with this project (editable) and what the demos
#                           need (matplotlib, graphviz, tqdm, numpy, scikit-learn): no PyTorch, no development tools
#   scripts/setup.sh test   the above plus the development tools (pytest, hypothesis, ruff, mypy,
#                           build), the documentation site's (MkDocs) and PyTorch's CPU build, the tests' second oracle
#                           (SKIP_TORCH=1: without PyTorch; the tests that need it are skipped)
# Both install Graphviz's `dot` with apt-get where it is missing and the machine allows it.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
MODE=${1:-}

case "$MODE" in
  demo) extras=demos ;;
  test) extras=demos,dev,docs ;;
  *) echo "usage: scripts/setup.sh demo|test (got '${MODE}')" >&2; exit 2 ;;
esac
case "${SKIP_TORCH:-0}" in
  0|1) ;;
  *) echo "setup: SKIP_TORCH must be 0 or 1 (got '${SKIP_TORCH}')" >&2; exit 2 ;;
esac

if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Graphviz (dot) with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
  else
    echo "setup: Graphviz's 'dot' is missing and cannot be installed here;" \
         "graphs will be saved as .dot source only (install it: apt-get install graphviz / brew install graphviz)" >&2
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
# setuptools (64+) reports every editable install with an "Editable installation." warning box, a
# note for packagers, not a problem: that one message is ignored, by its start, in pip and in the
# build backend pip starts (it inherits the environment); every other warning and error still shows.
PYTHONWARNINGS="${PYTHONWARNINGS:+$PYTHONWARNINGS,}ignore:Editable installation:UserWarning" \
  "$VENV/bin/python" -m pip install -q -e ".[$extras]"

if [ "$MODE" = test ]; then
  if [ "${SKIP_TORCH:-0}" = 1 ]; then
    echo "setup: SKIP_TORCH=1, PyTorch not installed; the torch cross-checks will be skipped"
  else
    # Only ever a CPU build (never the multi-GB CUDA one): see scripts/install_torch.py.
    "$VENV/bin/python" scripts/install_torch.py \
      || echo "setup: no CPU build of PyTorch reachable; the torch cross-checks will be skipped" >&2
  fi
fi
