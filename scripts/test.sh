#!/usr/bin/env bash
# Install everything the tests need (Python packages, Debian's Chromium) and run them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
bash scripts/install_browser.sh
exec "${CONTEXTLAB_VENV:-.venv}/bin/python" -m pytest "$@"
