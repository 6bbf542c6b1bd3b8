#!/usr/bin/env bash
# One-time set-up of a fresh machine: a virtual environment with this project
# (editable), its demo and development extras, PyTorch's CPU build (the second
# oracle of the tests) and, where the machine allows it, Graphviz's `dot`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

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
"$VENV/bin/python" -m pip install -q -e '.[demos,dev]'
# The CPU wheel of PyTorch 2.13.0 lies on these machines; pinning it exactly keeps
# pip from ever pulling a multi-GB CUDA build. Optional: the tests skip torch checks without it.
if [ "${SKIP_TORCH:-0}" != 1 ]; then
  "$VENV/bin/python" -m pip install -q torch==2.13.0 || echo "setup: torch==2.13.0 not available; torch cross-checks will be skipped" >&2
fi
touch "$VENV/.installed"
