"""A model in the loop: measured answers from any OpenAI-compatible endpoint, or the bundled one.

- ``ModelClient``: one model behind an OpenAI-compatible endpoint, over httpx (a deadline per call,
  a cap on each reply, no redirects, ``HTTP_PROXY`` / ``NO_PROXY`` honoured; replies checked at the door); the API
  key only from ``CONTEXTLAB_API_KEY`` (else ``OPENAI_API_KEY``), never written or shown.
- ``QATemplate`` / ``Shot``: the QA prompt of Liu et al. (2024), with solved examples in front.
- ``answer_is_correct``: the paper's scoring (a SQuAD-normalised gold answer in the answer).
- ``ResponseCache``: every response in SQLite, keyed by endpoint, model, sampling and prompt.
- ``answer_prompts`` / ``plan_calls``: bounded concurrency, cache first, the cost said up front.
- ``EndpointTokenizer``: the endpoint's ``/tokenize`` as a tokenizer, so budgets are the model's.
- ``LocalModelServer``: Gemma 3 270M on llama.cpp in process, on 127.0.0.1 (``contextlab[model]``).

Only ``LocalModelServer`` needs an extra (``xllamacpp``, imported when a server starts).
"""

from __future__ import annotations

from .batch import DEFAULT_CONCURRENCY, CallPlan, CallStats, answer_prompts, plan_calls, request_key
from .cache import CachedResponse, ResponseCache, cache_key, default_cache_path
from .client import APIS, ModelAnswer, ModelClient, Sampling, check_endpoint_url, default_sampling
from .keys import API_KEY_VARIABLES, api_key_source
from .prompts import CLOSED_BOOK_INSTRUCTION, DEFAULT_TEMPLATE, QA_INSTRUCTION, QATemplate, Shot, paper_documents
from .scoring import answer_is_correct, first_line, normalize_answer
from .server import BUNDLED_MODEL, GEMMA_TERMS_URL, LocalModelServer, bundled_model_path, free_port
from .tokenizer import EndpointTokenizer, endpoint_tokenizer, prompt_counter, server_root

__all__ = [
    "API_KEY_VARIABLES",
    "APIS",
    "BUNDLED_MODEL",
    "CLOSED_BOOK_INSTRUCTION",
    "CachedResponse",
    "CallPlan",
    "CallStats",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_TEMPLATE",
    "EndpointTokenizer",
    "GEMMA_TERMS_URL",
    "LocalModelServer",
    "ModelAnswer",
    "ModelClient",
    "QATemplate",
    "QA_INSTRUCTION",
    "ResponseCache",
    "Sampling",
    "Shot",
    "answer_is_correct",
    "answer_prompts",
    "api_key_source",
    "bundled_model_path",
    "cache_key",
    "check_endpoint_url",
    "default_cache_path",
    "default_sampling",
    "endpoint_tokenizer",
    "first_line",
    "free_port",
    "normalize_answer",
    "paper_documents",
    "plan_calls",
    "prompt_counter",
    "request_key",
    "server_root",
]
