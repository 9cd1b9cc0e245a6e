#!/usr/bin/env bash
# Make .venv (once) and install contextlab into it from this checkout; skip the install when
# nothing it depends on changed since the last one.
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
stamp="$venv/.contextlab-installed-$(basename "$requirements" .txt)"
wanted=$(cat requirements.txt "$requirements" pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    exit 0
fi
echo "Installing contextlab and its requirements into $venv ..."
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" -e .
echo "$wanted" > "$stamp"
