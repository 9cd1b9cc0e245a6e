"""Drop-in contextlab steps for LangChain, LlamaIndex and Haystack, and OpenInference traces.

Each framework module imports its framework when it is imported, never before: importing
``contextlab`` or this package loads none of them. Install the extra you need
(``pip install 'contextlab[langchain]'``, ``[llama-index]``, ``[haystack]``) and import
``contextlab.integrations.langchain.ContextLabCompressor``,
``contextlab.integrations.llama_index.ContextLabPostprocessor`` or
``contextlab.integrations.haystack.ContextLabBuilder``.
"""

from __future__ import annotations

__all__: list[str] = []
