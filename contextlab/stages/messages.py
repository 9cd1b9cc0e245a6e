"""Conversation lines: seed 000's ``format_memory`` and the role labels every history shares.

The engine's ``ContextManager.format_memory`` and seed 002's history fitting (``window/memory.py``)
both read messages through here, so the labels are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidInputError
from ..types import Message
from ..validation import whole_number

__all__ = ["coerce_messages", "format_memory", "format_message", "role_label"]


def role_label(role: str, *, seed_compatible: bool = False) -> str:
    """Return the line label of a role: "User", "Assistant", "System", "Tool", ...

    With ``seed_compatible=True`` every role but exactly "user" is "Assistant", as in seed 000.
    """
    if role == "user":
        return "User"
    if seed_compatible:
        return "Assistant"
    return role.strip().capitalize() or "Unknown"


def format_message(message: Message, *, seed_compatible: bool = False) -> str:
    """Return one message as a ``Label: content`` line."""
    return f"{role_label(message.role, seed_compatible=seed_compatible)}: {message.content}"


def coerce_messages(messages: Iterable[Message | Mapping[str, Any]], *, field_name: str = "messages") -> list[Message]:
    """Return ``messages`` as ``Message`` objects; chat dicts ``{"role", "content"}`` are accepted.

    Raises ``InvalidInputError`` naming the index of the first message that is neither.
    """
    if messages is None:
        return []
    if isinstance(messages, (str, bytes, Mapping)):
        raise InvalidInputError(
            f"{field_name} must be a list of Message objects or {{'role', 'content'}} dicts; "
            f"got a single {type(messages).__name__}"
        )
    out: list[Message] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, Message):
            role, content = msg.role, msg.content
        elif isinstance(msg, Mapping) and "role" in msg and "content" in msg:
            role, content = msg["role"], msg["content"]
        else:
            raise InvalidInputError(
                f"{field_name}[{i}] must be a Message or a dict with 'role' and 'content'; got {type(msg).__name__}"
            )
        if not isinstance(role, str) or not isinstance(content, str):
            raise InvalidInputError(
                f"{field_name}[{i}]: role and content must be strings; got role "
                f"{type(role).__name__} and content {type(content).__name__}"
            )
        out.append(msg if isinstance(msg, Message) else Message(role=role, content=content))
    return out


def format_memory(messages: list[Message], max_turns: int, *, seed_compatible: bool = False) -> str:
    """Return the last ``2 * max_turns`` messages as ``User: …`` / ``Assistant: …`` lines.

    ``max_turns`` counts user+assistant pairs; ``max_turns <= 0`` or no messages gives "".
    By default a "system" message is labelled ``System:`` and any other role by its
    capitalised name (``Tool:``); ``seed_compatible=True`` labels every role but "user"
    ``Assistant:``, reproducing seed 000 exactly.
    """
    whole_number("max_turns", max_turns, minimum=None)
    messages = coerce_messages(messages)
    if max_turns <= 0 or not messages:
        # The seed's memory[-0:] would return everything for max_turns=0; zero turns is zero.
        return ""
    tail = messages[-2 * max_turns :]
    return "\n".join(format_message(m, seed_compatible=seed_compatible) for m in tail)
