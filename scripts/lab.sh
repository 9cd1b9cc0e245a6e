#!/usr/bin/env bash
# Start the contextlab lab on the bundled sample data: http://localhost:8501, on this machine only
# (`--server.address 0.0.0.0` serves it to the network: see the README first).
# Every option goes to Streamlit, e.g.  bash scripts/lab.sh --server.port 8502
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CONTEXTLAB_VENV:-.venv}"
bash scripts/setup.sh
cat <<HINT
The contextlab command lives in $venv/bin, which is not on your PATH: in another terminal run
    $venv/bin/contextlab build sample_data/eng_postmortems.json -q 'why did checkout p99 latency spike on 12 November'
or first \`source $venv/bin/activate\`, then just \`contextlab build ...\`.
Options to scripts/lab.sh go to Streamlit (e.g. bash scripts/lab.sh --server.port 8502). Stop the lab with Ctrl+C.
HINT
exec "$venv/bin/contextlab" lab "$@"
