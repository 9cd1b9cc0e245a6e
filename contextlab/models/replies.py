"""What an OpenAI-compatible server sends back, checked at the door and turned into plain values.

A completion must be a JSON object with a non-empty ``choices`` list whose first entry holds
the text (``message.content`` for chat, ``text`` for completions) as a string; ``usage``
counts, when sent, must be whole numbers a prompt of this length and a ``max_tokens`` of this
size can have; a model list must be ``{"data": [{"id": ...}, ...]}``. Anything else raises
``BadReply`` with a one-line reason, which the client turns into an ``EndpointError`` naming
the endpoint: nothing malformed is stored, cached or shown.

Server strings (model ids, finish reasons) become one safe line (``safe_line``) before any
file, terminal or page sees them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import BadReply
from ..safe_text import terminal_safe
from ..validation import message_value

__all__ = ["Completion", "MAX_ID_CHARS", "answer_char_limit", "completion", "model_ids", "safe_line"]

#: How long a model id may be once shown (the rest is cut with "...").
MAX_ID_CHARS = 200
# More characters than this per token of max_tokens is not a reply to that max_tokens: the
# longest tokens of common vocabularies (runs of spaces, long words) are ~30 characters.
_CHARS_PER_TOKEN = 64
_MIN_ANSWER_CHARS = 4096
# A prompt is at most one token per byte, plus what a chat template adds around it.
_TEMPLATE_TOKENS = 8192


@dataclass(frozen=True)
class Completion:
    """A checked completion: its text, why it stopped, and the token counts the server gave (or None)."""

    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def safe_line(value: str, limit: int = MAX_ID_CHARS) -> str:
    """Return a server's string as one line: control characters escaped, at most ``limit`` characters."""
    line = terminal_safe(value.strip())
    return line if len(line) <= limit else line[:limit] + "..."


def answer_char_limit(max_tokens: int) -> int:
    """Return the most characters an answer of ``max_tokens`` tokens is kept with (longer ones are cut)."""
    return max(_MIN_ANSWER_CHARS, max_tokens * _CHARS_PER_TOKEN)


def _count(usage: dict[str, object], name: str, most: int) -> int | None:
    value = usage.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise BadReply(
            f"usage.{name} is {message_value(value)}, not a token count this request can have (0 to {most:,})"
        )
    return value


def _usage(body: dict[str, object], prompt_bytes: int, max_tokens: int) -> tuple[int | None, int | None]:
    usage = body.get("usage")
    if usage is None:
        return None, None
    if not isinstance(usage, dict):
        raise BadReply(f"usage is {type(usage).__name__} {message_value(usage)}, not an object of token counts")
    return (
        _count(usage, "prompt_tokens", prompt_bytes + _TEMPLATE_TOKENS),
        _count(usage, "completion_tokens", 2 * max_tokens + 16),
    )


def _text(choice: dict[str, object], api: str) -> str:
    if api == "chat":
        message = choice.get("message")
        if not isinstance(message, dict):
            raise BadReply(f"choices[0].message is {type(message).__name__} {message_value(message)}, not an object")
        text, where = message.get("content"), "choices[0].message.content"
    else:
        text, where = choice.get("text"), "choices[0].text"
    if text is None:  # a model that said nothing (content null): an empty answer, as the API allows
        return ""
    if not isinstance(text, str):
        raise BadReply(f"{where} is {type(text).__name__} {message_value(text)}, not text")
    return text


def completion(body: Any, api: str, *, prompt_bytes: int, max_tokens: int) -> Completion:
    """Return the checked ``Completion`` in a chat or completions reply ``body``, or raise ``BadReply``."""
    if not isinstance(body, dict):
        raise BadReply(f"the reply is {type(body).__name__} {message_value(body)}, not a completion object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        shown = "no choices" if choices is None else f"choices {message_value(choices)}"
        raise BadReply(f"the reply has {shown}, not a list of at least one choice")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise BadReply(f"choices[0] is {message_value(choice)}, not an object")
    reason = choice.get("finish_reason")
    if reason is not None and not isinstance(reason, str):
        raise BadReply(f"choices[0].finish_reason is {message_value(reason)}, not text")
    prompt_tokens, completion_tokens = _usage(body, prompt_bytes, max_tokens)
    return Completion(_text(choice, api), safe_line(reason, 40) if reason else None, prompt_tokens, completion_tokens)


def model_ids(body: Any) -> list[str]:
    """Return the ids a ``GET /models`` reply lists (as sent), or raise ``BadReply``."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise BadReply('the reply to GET /models is not a model list ({"data": [{"id": ...}]})')
    ids = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise BadReply(f'GET /models: data[{i}] is {message_value(entry)}, not a model ({{"id": ...}})')
        model = entry.get("id")
        if not isinstance(model, str):
            raise BadReply(f"GET /models: data[{i}].id is {message_value(model)}, not a model id")
        if model.strip():
            ids.append(model)
    return ids
