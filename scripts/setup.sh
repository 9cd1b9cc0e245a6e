#!/usr/bin/env bash
# Make .venv (once) and install contextlab into it from this checkout; skip the install when
# nothing it depends on changed since the last one.
#   scripts/setup.sh          the library, the CLI and the lab
#   scripts/setup.sh --dev    ...plus what the tests need (pytest, hypothesis, playwright)
# CONTEXTLAB_VENV names another virtual environment directory (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CONTEXTLAB_VENV:-.venv}"
requirements=requirements.txt
[ "${1:-}" = "--dev" ] && requirements=requirements-dev.txt
# One stamp per requirements file: the hash of what an install from it depends on.
stamp_of() { echo "$venv/.contextlab-installed-$(basename "$1" .txt)"; }
hash_of() { cat requirements.txt "$1" pyproject.toml | sha256sum | cut -d' ' -f1; }
current() { [ -f "$(stamp_of "$1")" ] && [ "$(cat "$(stamp_of "$1")")" = "$(hash_of "$1")" ]; }
# requirements-dev.txt starts with -r requirements.txt: a current --dev install covers a plain one.
if current "$requirements" || { [ "$requirements" = requirements.txt ] && current requirements-dev.txt; }; then
    exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "[1/3] Creating the virtual environment $venv ..."
    python3 -m venv "$venv"
else
    echo "[1/3] Using the virtual environment $venv"
fi
# The first install downloads Streamlit, pandas, numpy and tiktoken (a couple of minutes):
# let pip show what it fetches. Later installs only top up what changed: one line is enough.
if ls "$venv"/.contextlab-installed-* >/dev/null 2>&1; then
    echo "[2/3] Updating the install ($requirements or pyproject.toml changed since the last one) ..."
    quiet=(--quiet)
else
    echo "[2/3] Installing contextlab and its requirements ($requirements); the first time takes a couple of minutes ..."
    quiet=()
fi
"$venv/bin/python" -m pip install ${quiet[@]+"${quiet[@]}"} --disable-pip-version-check -r "$requirements" -e .
hash_of "$requirements" > "$(stamp_of "$requirements")"
if [ "$requirements" = requirements-dev.txt ]; then
    hash_of requirements.txt > "$(stamp_of requirements.txt)"  # what it installed includes the plain set
fi
echo "[3/3] Installed. The contextlab command is $venv/bin/contextlab (or run \`source $venv/bin/activate\` to type just \`contextlab\`)."
