#!/usr/bin/env bash
# Install everything the tests need (Python packages, Debian's Chromium), run the gates, then every test.
# The gates: ruff's lint and format check on the whole tree, mypy --strict on the package.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
bash scripts/install_browser.sh
py="${CONTEXTLAB_VENV:-.venv}/bin/python"
echo "Gates: ruff check, ruff format --check, mypy (strict) ..."
"$py" -m ruff check .
"$py" -m ruff format --check .
"$py" -m mypy
exec "$py" -m pytest "$@"
