"""Tests for contextlab.window: WindowBudget, HybridRanking and assemble_prompt."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from contextlab.errors import BudgetError, InvalidInputError
from contextlab.manager import ContextManager
from contextlab.tokenizers import get_tokenizer
from contextlab.types import Document, Message
from contextlab.window import (
    REPLY_PRIMING_TOKENS,
    AssembledPrompt,
    HybridRanking,
    WindowBudget,
    assemble_prompt,
    count_message_tokens,
)

HEURISTIC = get_tokenizer("heuristic")
HOUR = 3600.0
NOW = 1_700_000_000.0


def heuristic_manager() -> ContextManager:
    return ContextManager(tokenizer="heuristic")


# --- WindowBudget ----------------------------------------------------------------------------


def test_window_budget_default_allocation_matches_seed():
    budget = WindowBudget()
    assert budget.allocation() == {
        "system": 1600,
        "documents": 16000,
        "conversation": 8000,
        "output_reserve": 4800,
        "buffer": 1600,
    }
    assert budget.limit == 32000 - 4800


def test_window_budget_unassigned_share_goes_to_buffer():
    budget = WindowBudget(max_tokens=1000, system=0.1, documents=0.3, conversation=0.1, output_reserve=0.2, buffer=0.0)
    assert budget.allocation()["buffer"] == 1000 - 200 - 100 - 300 - 100


def test_window_budget_output_reserve_rounds_up():
    assert WindowBudget(max_tokens=101).output_reserve_tokens == 16  # 15.15 -> 16


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_tokens": 0}, r"WindowBudget.max_tokens must be a whole number >= 1"),
        ({"max_tokens": 10.5}, "WindowBudget.max_tokens must be a whole number"),
        ({"system": -0.1}, r"WindowBudget.system must be in \[0, 1\]"),
        ({"documents": 1.5}, r"WindowBudget.documents must be in \[0, 1\]"),
        ({"conversation": float("nan")}, r"WindowBudget.conversation must be in \[0, 1\]"),
        ({"output_reserve": "0.1"}, r"WindowBudget.output_reserve must be in \[0, 1\]"),
        ({"buffer": 0.5}, "shares must sum to at most 1"),
    ],
)
def test_window_budget_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        WindowBudget(**kwargs)


# --- assemble_prompt -------------------------------------------------------------------------

DOCS = [
    Document("alpha beta gamma delta epsilon zeta", 0.9, "a", timestamp=NOW - 24 * HOUR),
    Document("one two three four five six seven", 0.5, "b", importance=1.0),
]
HISTORY = [Message("user", "hi there"), Message("assistant", "hello, how can I help?")]


def test_assemble_prompt_literal_layout():
    prompt = assemble_prompt(
        "Be brief.",
        DOCS,
        HISTORY,
        "what is alpha?",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
    )
    assert prompt.text == (
        "Be brief.\n\n"
        "Documents:\n"
        "--- Source [1] a --- (hybrid score: 0.70)\n"
        "alpha beta gamma delta epsilon zeta\n\n"
        "--- Source [2] b --- (hybrid score: 0.50)\n"
        "one two three four five six seven\n\n"
        "Conversation:\n"
        "User: hi there\n"
        "Assistant: hello, how can I help?\n\n"
        "Question: what is alpha?"
    )
    assert prompt.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": prompt.text.split("\n\n", 1)[1].rsplit("\n\nConversation:", 1)[0]},
        {"role": "user", "content": "hi there"},
        {"role": "assistant", "content": "hello, how can I help?"},
        {"role": "user", "content": "what is alpha?"},
    ]
    assert prompt.tokens_used == HEURISTIC.count(prompt.text)
    assert prompt.message_tokens == count_message_tokens(prompt.messages, HEURISTIC)


def test_assemble_prompt_account_per_section():
    prompt = assemble_prompt(
        "Be brief.",
        DOCS,
        HISTORY,
        "what is alpha?",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
    )
    acc = prompt.sections
    assert list(acc) == ["system", "documents", "conversation", "query", "buffer"]
    assert (acc["system"].budget, acc["documents"].budget, acc["conversation"].budget) == (50, 500, 250)
    assert (acc["documents"].items_in, acc["documents"].items_out) == (2, 2)
    assert (acc["conversation"].items_in, acc["conversation"].items_out) == (2, 2)
    assert acc["query"].used == HEURISTIC.count("Question: what is alpha?")
    assert acc["query"].borrowed_from == {"buffer": acc["query"].borrowed}
    assert prompt.tokens_limit == 850
    assert isinstance(prompt.to_dict()["sections"]["documents"]["limit"], int)


def test_assemble_prompt_exposes_documents_result_with_input_indices():
    prompt = assemble_prompt(
        "", DOCS, [], "q", window_budget=WindowBudget(max_tokens=1000), manager=heuristic_manager(), now=NOW
    )
    result = prompt.documents_result
    assert result is not None
    assert [t.input_index for t in result.trace] == [0, 1]
    assert [t.source for t in result.trace] == ["a", "b"]
    assert result.included_docs[0].metadata["hybrid"]["relevance"] == 0.9


def test_assemble_prompt_hybrid_ranking_changes_order_with_the_clock():
    docs = [
        Document("old document about alpha beta gamma", 0.9, "old", timestamp=NOW - 240 * HOUR),
        Document("fresh document about alpha beta gamma delta", 0.7, "fresh", timestamp=NOW),
    ]
    prompt = assemble_prompt(
        "", docs, [], "q", window_budget=WindowBudget(max_tokens=1000), manager=heuristic_manager(), now=NOW
    )
    assert [d.source for d in prompt.ranked_documents] == ["fresh", "old"]
    pure = assemble_prompt(
        "",
        docs,
        [],
        "q",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
        ranking=HybridRanking(relevance=1, recency=0, importance=0),
    )
    assert [d.source for d in pure.ranked_documents] == ["old", "fresh"]


def test_assemble_prompt_query_alone_too_long_raises_budget_error():
    with pytest.raises(BudgetError, match="the query alone needs .* tokens but the window leaves 85"):
        assemble_prompt(
            "sys", DOCS, HISTORY, "word " * 200, window_budget=WindowBudget(max_tokens=100), manager=heuristic_manager()
        )


def test_assemble_prompt_long_query_is_never_truncated():
    query = " ".join(f"q{i}" for i in range(40))
    prompt = assemble_prompt(
        "system rules here",
        DOCS,
        HISTORY,
        query,
        window_budget=WindowBudget(max_tokens=120),
        manager=heuristic_manager(),
        now=NOW,
    )
    assert prompt.text.endswith("Question: " + query)
    assert prompt.messages[-1] == {"role": "user", "content": query}
    assert prompt.sections["query"].borrowed_from.get("documents", 0) > 0
    assert max(prompt.tokens_used, prompt.message_tokens) <= prompt.tokens_limit


def test_assemble_prompt_unused_conversation_share_is_lent_to_documents():
    docs = [Document(" ".join(f"w{i}_{j}" for j in range(60)), 0.9 - i / 10, f"d{i}") for i in range(8)]
    prompt = assemble_prompt(
        "", docs, [], "q", window_budget=WindowBudget(max_tokens=600), manager=heuristic_manager(), now=NOW
    )
    conv, documents = prompt.sections["conversation"], prompt.sections["documents"]
    assert conv.lent_to.get("documents", 0) > 0
    assert documents.borrowed_from["conversation"] == conv.lent_to["documents"]
    assert any(note.startswith("lent ") for note in conv.notes)
    assert documents.used > documents.budget  # it really used the loan


def test_assemble_prompt_system_prompt_truncated_only_as_last_resort():
    system = " ".join(f"rule{i}" for i in range(100))  # 130 heuristic tokens, share is 30
    docs = [Document(" ".join(f"w{i}_{j}" for j in range(80)), 0.9, f"d{i}") for i in range(10)]
    history = [Message("user", " ".join(f"h{i}_{j}" for j in range(30))) for i in range(10)]
    prompt = assemble_prompt(
        system, docs, history, "q", window_budget=WindowBudget(max_tokens=600), manager=heuristic_manager(), now=NOW
    )
    notes = prompt.sections["system"].notes
    assert any(n.startswith("system prompt truncated to its share") for n in notes)
    assert prompt.text.startswith("rule0 rule1")
    # Documents and conversation need all their shares: the system prompt gets the buffer's
    # leftovers before it is cut.
    assert prompt.sections["system"].borrowed_from["buffer"] > 0
    assert max(prompt.tokens_used, prompt.message_tokens) <= prompt.tokens_limit

    roomy = assemble_prompt(
        system, docs[:1], [], "q", window_budget=WindowBudget(max_tokens=600), manager=heuristic_manager(), now=NOW
    )
    assert roomy.text.startswith(system + "\n\n")
    assert roomy.sections["system"].borrowed > 0
    assert not any("truncated" in n for n in roomy.sections["system"].notes)


def test_assemble_prompt_old_history_is_summarized_not_dropped():
    history = [
        Message("user" if i % 2 == 0 else "assistant", f"Turn {i} says something. More detail {i}.") for i in range(30)
    ]
    prompt = assemble_prompt(
        "", [], history, "q", window_budget=WindowBudget(max_tokens=300), manager=heuristic_manager(), now=NOW
    )
    fit = prompt.history
    assert fit.summarized_indices and fit.kept_indices
    assert sorted(fit.summarized_indices + fit.kept_indices) == list(range(30))
    assert "[Summary of" in prompt.text and "- User: Turn 0 says something." in prompt.text
    assert prompt.sections["conversation"].notes[-1] == f"{len(fit.summarized_indices)} older messages summarized"


def test_assemble_prompt_empty_everything_is_just_the_query():
    prompt = assemble_prompt(
        "", [], [], "hello?", window_budget=WindowBudget(max_tokens=100), manager=heuristic_manager()
    )
    assert prompt.text == "Question: hello?"
    assert prompt.messages == [{"role": "user", "content": "hello?"}]
    assert prompt.documents_result is None


def test_count_message_tokens_adds_overhead_per_message():
    msgs = [{"role": "user", "content": "a b c d e f g h i j"}]
    assert count_message_tokens(msgs, "heuristic") == REPLY_PRIMING_TOKENS + 3 + 1 + 13


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"system_prompt": None}, "system_prompt must be a string"),
        ({"query": 42}, "query must be a string"),
        ({"window_budget": 32000}, "window_budget must be a WindowBudget"),
        ({"ranking": "recency"}, "ranking must be a HybridRanking"),
        ({"history": [("user", "hi")]}, r"history\[0\] must be a Message"),
        ({"documents": ["text"]}, r"documents\[0\] must be a Document"),
        ({"now": float("nan")}, "now must be a finite number"),
        ({"tokenizer": "cl100k_base"}, "differs from the manager's 'heuristic'"),
    ],
)
def test_assemble_prompt_rejects_bad_input(kwargs, match):
    args = {"system_prompt": "s", "documents": DOCS, "history": HISTORY, "query": "q", "manager": heuristic_manager()}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        assemble_prompt(
            args.pop("system_prompt"), args.pop("documents"), args.pop("history"), args.pop("query"), **args
        )


def test_assemble_prompt_errors_are_invalid_input_errors():
    with pytest.raises(InvalidInputError):
        assemble_prompt("s", [], [], None, manager=heuristic_manager())


_words = st.lists(st.sampled_from(["alpha", "beta", "the", "cat.", "why?", "x" * 12, "!"]), max_size=40).map(" ".join)
_windows = st.builds(
    WindowBudget,
    max_tokens=st.integers(min_value=40, max_value=700),
    system=st.sampled_from([0.0, 0.05, 0.1]),
    documents=st.sampled_from([0.0, 0.3, 0.45]),
    conversation=st.sampled_from([0.0, 0.1, 0.25]),
    output_reserve=st.sampled_from([0.0, 0.15]),
    buffer=st.sampled_from([0.0, 0.05]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    system=_words,
    docs=st.lists(
        st.builds(
            Document,
            content=_words,
            score=st.floats(0, 1),
            timestamp=st.one_of(st.none(), st.floats(NOW - 100 * HOUR, NOW)),
            importance=st.floats(0, 1),
        ),
        max_size=8,
    ),
    history=st.lists(st.builds(Message, st.sampled_from(["user", "assistant", "system"]), _words), max_size=10),
    query=_words,
    budget=_windows,
)
def test_assemble_prompt_property_within_budget_query_last_nothing_lost(system, docs, history, query, budget):
    try:
        prompt = assemble_prompt(
            system, docs, history, query, window_budget=budget, manager=heuristic_manager(), now=NOW
        )
    except BudgetError:
        assume(False)
    assert isinstance(prompt, AssembledPrompt)
    assert prompt.tokens_used == HEURISTIC.count(prompt.text) <= prompt.tokens_limit
    assert prompt.message_tokens == count_message_tokens(prompt.messages, HEURISTIC) <= prompt.tokens_limit
    assert prompt.text.endswith("Question: " + query)
    assert prompt.messages[-1] == {"role": "user", "content": query}
    fit = prompt.history
    question = [] if prompt.question_index is None else [prompt.question_index]
    assert sorted(fit.kept_indices + fit.summarized_indices + question) == list(range(len(history)))
    if prompt.question_index is not None:
        assert prompt.question_index == len(history) - 1 and history[-1].role == "user"
    for i in fit.kept_indices:
        assert {"role": history[i].role, "content": history[i].content} in prompt.messages
    if fit.summary:
        assert fit.summary in prompt.text


README_SNIPPET_OUTPUT = """\
You are a support assistant. Cite sources as [n].

Documents:
--- Source [1] kb/2fa.md --- (hybrid score: 0.87)
2FA codes arrive by SMS; if they do not, use a backup code.

--- Source [2] kb/reset.md --- (hybrid score: 0.61)
Reset your password from Settings > Security > Reset password.

Conversation:
[Summary of 2 earlier messages]
- User: How do I reset [...]
User: And the 2FA code? It never arrives.
Assistant: Check your spam folder first.

Question: The backup codes are gone too. What now?
documents: 90 of the window's 180 tokens (50%), not max_context_tokens; the ContextManager got 69 after lending \
and headers
section       budget   used   in  out  notes
system             9     13    1    1  borrowed 5 from documents; took 3 tokens the built sections left free
documents         90     70    2    2  lent 8 to query, 5 to system
conversation      45     40    4    2  took 11 tokens the built sections left free; 2 older messages summarized
query              0     12    1    1  borrowed 9 from buffer, 8 from documents
buffer             9      0    0    0  lent 9 to query
total            153    135  (+27 reserved for the answer; cl100k_base)
"""


def test_readme_window_example_prints_documented_output():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # --- README snippet (keep in sync with README.md) ---
        from contextlab import Document, Message
        from contextlab.window import HybridRanking, WindowBudget, assemble_prompt

        now = 1_700_000_000  # fixed clock so recency is reproducible
        docs = [
            Document(
                "Reset your password from Settings > Security > Reset password.",
                score=0.9,
                source="kb/reset.md",
                timestamp=now - 72 * 3600,
            ),
            Document(
                "2FA codes arrive by SMS; if they do not, use a backup code.",
                score=0.8,
                source="kb/2fa.md",
                timestamp=now - 3600,
                importance=0.9,
            ),
        ]
        history = [
            Message("user", "How do I reset my password? I forgot it."),
            Message("assistant", "Open Settings, then Security. Click reset."),
            Message("user", "And the 2FA code? It never arrives."),
            Message("assistant", "Check your spam folder first."),
        ]
        prompt = assemble_prompt(
            "You are a support assistant. Cite sources as [n].",
            docs,
            history,
            "The backup codes are gone too. What now?",
            window_budget=WindowBudget(max_tokens=180),
            ranking=HybridRanking(),
            now=now,
        )
        print(prompt.text)
        print(prompt.report())
        # --- end of README snippet ---
    assert out.getvalue() == README_SNIPPET_OUTPUT


def test_assemble_prompt_pluggable_summarizer_is_called_once_per_prefix():
    calls: list[int] = []

    def summarizer(older: list[Message]) -> str:
        calls.append(len(older))
        return f"Earlier: {len(older)} turns about nothing."

    history = [Message("user", f"message number {i} with a few words") for i in range(20)]
    prompt = assemble_prompt(
        "",
        [],
        history,
        "q",
        window_budget=WindowBudget(max_tokens=200),
        manager=heuristic_manager(),
        now=NOW,
        summarizer=summarizer,
    )
    n = len(prompt.history.summarized_indices)
    assert n > 0
    assert f"Earlier: {n} turns about nothing." in prompt.text
    assert len(calls) == len(set(calls))


def test_assemble_prompt_question_repeated_as_last_turn_appears_once():
    history = HISTORY + [Message("user", "what is  alpha?")]  # same words, other spacing
    prompt = assemble_prompt(
        "Be brief.",
        DOCS,
        history,
        "what is alpha?",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
    )
    assert prompt.text.count("what is alpha?") == 1
    assert prompt.text.endswith("Assistant: hello, how can I help?\n\nQuestion: what is alpha?")
    assert [m["content"] for m in prompt.messages].count("what is alpha?") == 1
    assert prompt.messages[-2:] == [
        {"role": "assistant", "content": "hello, how can I help?"},
        {"role": "user", "content": "what is alpha?"},
    ]
    assert prompt.question_index == 2
    assert prompt.history.kept_indices == [0, 1]
    conversation = prompt.sections["conversation"]
    assert (conversation.items_in, conversation.items_out) == (2, 2)
    assert conversation.notes[-1] == "its last message is the question, shown once as the query"
    assert prompt.to_dict()["question_index"] == 2


@pytest.mark.parametrize("last", [Message("assistant", "what is alpha?"), Message("user", "what is beta?")])
def test_assemble_prompt_last_turn_that_is_not_the_question_is_kept(last):
    prompt = assemble_prompt(
        "",
        [],
        HISTORY + [last],
        "what is alpha?",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
    )
    assert prompt.question_index is None
    assert prompt.history.kept_indices == [0, 1, 2]
    assert prompt.messages[-2] == {"role": last.role, "content": last.content}


def test_assemble_prompt_documents_budget_is_what_the_manager_got():
    prompt = assemble_prompt(
        "Be brief.",
        DOCS,
        HISTORY,
        "what is alpha?",
        window_budget=WindowBudget(max_tokens=1000),
        manager=heuristic_manager(),
        now=NOW,
    )
    assert prompt.documents_result is not None
    assert prompt.documents_budget == prompt.documents_result.tokens_budget
    assert 0 < prompt.documents_budget < prompt.sections["documents"].limit
    assert prompt.documents_budget_note == (
        f"documents: 500 of the window's 1000 tokens (50%), not max_context_tokens; "
        f"the ContextManager got {prompt.documents_budget} after lending and headers"
    )
    assert prompt.report().splitlines()[0] == prompt.documents_budget_note
    assert prompt.to_dict()["documents_budget"] == prompt.documents_budget
    empty = assemble_prompt("", [], [], "q", window_budget=WindowBudget(max_tokens=100), manager=heuristic_manager())
    assert empty.documents_budget == 0
    assert empty.documents_budget_note.endswith("(50%), not max_context_tokens; no documents were given")


def test_assemble_prompt_cut_system_prompt_ends_with_the_truncation_marker():
    from contextlab.stages.budget import TRUNCATION_MARKER

    system = " ".join(f"rule{i}" for i in range(100))
    docs = [Document(" ".join(f"w{i}_{j}" for j in range(80)), 0.9, f"d{i}") for i in range(10)]
    prompt = assemble_prompt(
        system, docs, [], "q", window_budget=WindowBudget(max_tokens=300), manager=heuristic_manager(), now=NOW
    )
    cut = prompt.messages[0]["content"]
    assert cut.endswith(TRUNCATION_MARKER) and system.startswith(cut[: -len(TRUNCATION_MARKER)])
    assert len(cut) < len(system)
    assert max(prompt.tokens_used, prompt.message_tokens) <= prompt.tokens_limit


def test_assemble_prompt_headers_name_the_hybrid_score_without_touching_the_callers_manager():
    manager = heuristic_manager()
    prompt = assemble_prompt("", DOCS, [], "q", window_budget=WindowBudget(max_tokens=1000), manager=manager, now=NOW)
    assert "--- Source [1] a --- (hybrid score: 0.70)" in prompt.text
    assert "(relevance:" not in prompt.text
    assert manager.score_label == "relevance"
    custom = ContextManager(tokenizer="heuristic", score_label="blend")
    kept = assemble_prompt("", DOCS, [], "q", window_budget=WindowBudget(max_tokens=1000), manager=custom, now=NOW)
    assert "--- Source [1] a --- (blend: 0.70)" in kept.text


def test_assemble_prompt_slack_that_overshoots_is_offered_again_smaller():
    # The README's window: handing the conversation all the measured slack adds a chat message
    # and overshoots; a smaller offer still keeps the last two turns verbatim.
    now = 1_700_000_000
    docs = [
        Document(
            "Reset your password from Settings > Security > Reset password.",
            score=0.9,
            source="kb/reset.md",
            timestamp=now - 72 * 3600,
        ),
        Document(
            "2FA codes arrive by SMS; if they do not, use a backup code.",
            score=0.8,
            source="kb/2fa.md",
            timestamp=now - 3600,
            importance=0.9,
        ),
    ]
    history = [
        Message("user", "How do I reset my password? I forgot it."),
        Message("assistant", "Open Settings, then Security. Click reset."),
        Message("user", "And the 2FA code? It never arrives."),
        Message("assistant", "Check your spam folder first."),
    ]
    prompt = assemble_prompt(
        "You are a support assistant. Cite sources as [n].",
        docs,
        history,
        "The backup codes are gone too. What now?",
        window_budget=WindowBudget(max_tokens=180),
        now=now,
    )
    assert prompt.history.kept_indices == [2, 3]
    assert any(n.startswith("took ") for n in prompt.sections["conversation"].notes)
    assert max(prompt.tokens_used, prompt.message_tokens) <= prompt.tokens_limit
