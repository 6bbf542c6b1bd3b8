#!/usr/bin/env bash
# Test set-up only (never `make demo`): Debian's Chromium and ChromeDriver for the
# browser tests of the explorer and the training replay, and Selenium in the venv.
# No browser is downloaded from anywhere but Debian's archive. Without root or apt-get,
# it says so and the browser tests skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install_browser: installing Debian's chromium and chromium-driver with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "install_browser: chromium/chromedriver are missing and cannot be installed here" \
       "(needs root and apt-get: apt-get install chromium chromium-driver); browser tests will skip" >&2
fi

if [ -x "$VENV/bin/python" ]; then
  "$VENV/bin/python" -m pip install -q 'selenium>=4.10'
else
  echo "install_browser: no virtual environment at $VENV (run scripts/setup.sh first)" >&2
  exit 1
fi
