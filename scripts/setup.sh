#!/usr/bin/env bash
# Make .venv (once) and install contextlab into it from this checkout.
#   scripts/setup.sh          the library, the CLI and the lab
#   scripts/setup.sh --dev    ...plus what the tests need (pytest, hypothesis, playwright)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CONTEXTLAB_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
requirements=requirements.txt
[ "${1:-}" = "--dev" ] && requirements=requirements-dev.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" -e .
