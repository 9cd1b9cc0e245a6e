"""Tests for contextlab.window.memory: format_memory and fit_history."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab.errors import InvalidInputError
from contextlab.stages.messages import format_memory, role_label
from contextlab.tokenizers import get_tokenizer
from contextlab.types import Message
from contextlab.window.memory import (
    HistoryFit,
    extractive_summary,
    fit_history,
    summary_header,
)

HEURISTIC = get_tokenizer("heuristic")

CHAT = [
    Message("system", "Be terse. Always cite."),
    Message("user", "How do I reset my password? I forgot it."),
    Message("assistant", "Open Settings, then Security. Click reset."),
    Message("user", "And the 2FA code? It never arrives."),
    Message("assistant", "Check spam. Or use the backup codes."),
    Message("user", "Thanks!"),
]


# --- format_memory -------------------------------------------------------------------------


def test_format_memory_keeps_last_two_per_turn():
    assert format_memory(CHAT, 1) == ("Assistant: Check spam. Or use the backup codes.\nUser: Thanks!")


def test_format_memory_labels_system_and_other_roles_by_name():
    msgs = [Message("system", "rules"), Message("tool", "42"), Message("user", "hi")]
    assert format_memory(msgs, 5) == "System: rules\nTool: 42\nUser: hi"


def test_format_memory_seed_compatible_labels_every_non_user_role_assistant():
    msgs = [Message("system", "rules"), Message("tool", "42"), Message("User", "hi")]
    assert format_memory(msgs, 5, seed_compatible=True) == ("Assistant: rules\nAssistant: 42\nAssistant: hi")


@pytest.mark.parametrize("max_turns", [0, -1, -10])
def test_format_memory_non_positive_turns_is_empty(max_turns):
    assert format_memory(CHAT, max_turns) == ""


def test_format_memory_empty_is_empty():
    assert format_memory([], 3) == ""


def test_format_memory_accepts_chat_dicts():
    assert format_memory([{"role": "user", "content": "hi"}], 1) == "User: hi"


@pytest.mark.parametrize(
    ("messages", "max_turns", "match"),
    [
        (CHAT, 1.5, "max_turns must be a whole number, got 1.5"),
        (CHAT, True, "max_turns must be a whole number, got True"),
        (["hello"], 1, r"messages\[0\] must be a Message"),
        ([Message("user", 3)], 1, r"messages\[0\]: role and content must be strings"),
        ("hello", 1, "got a single str"),
    ],
)
def test_format_memory_rejects_bad_input(messages, max_turns, match):
    with pytest.raises(ValueError, match=match):
        format_memory(messages, max_turns)


def test_role_label_empty_role_is_unknown():
    assert role_label("  ") == "Unknown"


# --- extractive_summary ----------------------------------------------------------------------


def test_extractive_summary_takes_first_sentence_of_each_turn():
    assert extractive_summary(CHAT[:3]) == (
        "- System: Be terse.\n- User: How do I reset my password?\n- Assistant: Open Settings, then Security."
    )


def test_extractive_summary_prefers_user_and_system_turns_under_budget():
    # Room for two lines: the system and user lines win over the assistant one.
    text = extractive_summary(CHAT[:3], max_tokens=17, tokenizer="heuristic")
    assert text == "- System: Be terse.\n- User: How do I reset my password?"
    assert HEURISTIC.count(text) <= 17


def test_extractive_summary_caps_long_sentences():
    long_turn = Message("user", " ".join(f"w{i}" for i in range(50)))
    line = extractive_summary([long_turn])
    assert line.endswith(" [...]")
    assert len(line.split()) == 2 + 30 + 1  # "- User:" + 30 words + "[...]"


# --- fit_history -------------------------------------------------------------------------------


def test_fit_history_keeps_everything_when_it_fits():
    fit = fit_history(CHAT, 100, "heuristic")
    assert fit.kept_indices == [0, 1, 2, 3, 4, 5]
    assert fit.summarized_indices == []
    assert fit.summary == ""
    assert fit.text == format_memory(CHAT, 10)
    assert fit.tokens_used == HEURISTIC.count(fit.text)


def test_fit_history_summarizes_older_turns_literal_layout():
    fit = fit_history(CHAT, 40, "heuristic")
    assert fit.kept_indices == [3, 4, 5]
    assert fit.summarized_indices == [0, 1, 2]
    assert fit.text == (
        "[Summary of 3 earlier messages]\n"
        "- System: Be terse.\n"
        "User: And the 2FA code? It never arrives.\n"
        "Assistant: Check spam. Or use the backup codes.\n"
        "User: Thanks!"
    )
    assert fit.summary_truncated is True
    assert fit.tokens_used <= 40


def test_fit_history_account_covers_every_message():
    fit = fit_history(CHAT, 30, "heuristic")
    assert fit.account() == {0: "summarized", 1: "summarized", 2: "summarized", 3: "summarized", 4: "kept", 5: "kept"}


def test_fit_history_zero_budget_accounts_for_all_in_summary_indices():
    fit = fit_history(CHAT, 0, "heuristic")
    assert fit.text == ""
    assert fit.summarized_indices == list(range(len(CHAT)))
    assert "could not get even a summary header" in fit.notes[0]


def test_fit_history_empty_history():
    fit = fit_history([], 50, "heuristic")
    assert isinstance(fit, HistoryFit)
    assert (fit.text, fit.tokens_used, fit.notes) == ("", 0, [])


def test_fit_history_system_message_keeps_its_role():
    msgs = [Message("user", "a b c"), Message("system", "Answer in French."), Message("user", "ok")]
    fit = fit_history(msgs, 100, "heuristic")
    assert "System: Answer in French." in fit.text
    assert fit.to_messages()[1] == {"role": "system", "content": "Answer in French."}


def test_fit_history_uses_pluggable_summarizer():
    seen: list[list[Message]] = []

    def summarizer(older: list[Message]) -> str:
        seen.append(older)
        return f"They talked about passwords ({len(older)} turns)."

    fit = fit_history(CHAT, 30, "heuristic", summarizer)
    assert seen[-1] == CHAT[: len(fit.summarized_indices)]
    assert fit.summary == (
        f"{summary_header(len(fit.summarized_indices))}\n"
        f"They talked about passwords ({len(fit.summarized_indices)} turns)."
    )


def test_fit_history_summarizer_must_return_text():
    with pytest.raises(InvalidInputError, match="summarizer must return a string"):
        fit_history(CHAT, 30, "heuristic", lambda older: None)


def test_fit_history_message_overhead_is_charged_per_message():
    plain = fit_history(CHAT, 60, "heuristic")
    charged = fit_history(CHAT, 60, "heuristic", message_overhead=4)
    assert len(charged.kept) < len(plain.kept)
    assert charged.tokens_used + 4 * charged.n_items <= 60


def test_fit_history_summary_becomes_system_chat_message():
    fit = fit_history(CHAT, 30, "heuristic")
    first = fit.to_messages()[0]
    assert first["role"] == "system"
    assert first["content"].startswith("[Summary of 4 earlier messages]")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_tokens": -1}, "max_tokens must be a whole number >= 0, got -1"),
        ({"max_tokens": 1.5}, "max_tokens must be a whole number, got 1.5"),
        ({"max_tokens": 10, "tokenizer": "gpt2"}, "unknown tokenizer 'gpt2'"),
        ({"max_tokens": 10, "summarizer": "nope"}, "summarizer must be callable"),
        ({"max_tokens": 10, "message_overhead": -2}, "message_overhead must be a whole number >= 0, got -2"),
    ],
)
def test_fit_history_rejects_bad_values(kwargs, match):
    kwargs.setdefault("tokenizer", "heuristic")
    with pytest.raises(ValueError, match=match):
        fit_history(CHAT, **kwargs)


def test_fit_history_exact_tokenizer_stays_within_budget():
    fit = fit_history(CHAT, 25, "cl100k_base")
    assert get_tokenizer("cl100k_base").count(fit.text) <= 25
    assert fit.kept_indices[-1] == len(CHAT) - 1


_roles = st.sampled_from(["user", "assistant", "system", "tool"])
_texts = st.text(alphabet=st.sampled_from(list("ab .?!\n")), max_size=60)


@settings(max_examples=80, deadline=None)
@given(
    msgs=st.lists(st.builds(Message, _roles, _texts), max_size=12),
    budget=st.integers(min_value=0, max_value=80),
    overhead=st.integers(min_value=0, max_value=4),
)
def test_fit_history_property_within_budget_and_nothing_lost(msgs, budget, overhead):
    fit = fit_history(msgs, budget, "heuristic", message_overhead=overhead)
    assert HEURISTIC.count(fit.text) + overhead * fit.n_items <= budget
    assert sorted(fit.kept_indices + fit.summarized_indices) == list(range(len(msgs)))
    # The kept turns are the most recent run, in order, verbatim.
    assert fit.kept == msgs[len(msgs) - len(fit.kept) :]
    if fit.summarized_indices and fit.summary:
        assert fit.summary.startswith(summary_header(len(fit.summarized_indices)))


def test_memory_summary_cuts_turns_at_the_one_sentence_rule():
    # The history summary and document synopses split sentences the same way (stages.summarize):
    # a full stop before a lower-case word ("e.g. the") does not end a sentence.
    from contextlab.window.memory import extractive_summary

    turns = [Message("user", "Use a backup code, e.g. the one printed at setup. Then reset 2FA.")]
    assert extractive_summary(turns) == "- User: Use a backup code, e.g. the one printed at setup."
