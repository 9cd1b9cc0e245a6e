#!/usr/bin/env bash
# Start the contextlab lab on the bundled sample data: http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${CONTEXTLAB_VENV:-.venv}/bin/python" -m streamlit run app.py "$@"
