"""The README stays short and plain: at most 300 lines, short sentences, no project history.

The performance page too stays within 250 lines and names no history (git keeps it).

Run as a script to print the figures: ``python tests/test_readme_plain.py``.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
PERFORMANCE = README.parent / "docs" / "performance.md"

MAX_LINES = 300
MAX_PERFORMANCE_LINES = 250
MAX_MEDIAN_WORDS = 20
#: Words of project history a newcomer cannot know: design seeds, work rounds, issue numbers.
HISTORY = re.compile(r"seed 0|round \d|\bissues? #?\d|(?<![\w/&])#\d+\b", re.IGNORECASE)

_CODE_SPAN = re.compile(r"`[^`]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?])[*_\"')\]]*\s+")
#: A bold lead-in ("**Chunks.**") labels a paragraph; it is not a sentence.
_LABEL = re.compile(r"^\*\*[^*]+[.:]\*\*\s*")


def prose_paragraphs(text: str) -> list[str]:
    """Return the README's prose: paragraphs and list items, without code blocks, tables, headings or images."""
    paragraphs: list[str] = []
    lines: list[str] = []
    in_code = False

    def close() -> None:
        if lines:
            paragraphs.append(" ".join(lines))
            lines.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            close()
            in_code = not in_code
            continue
        if in_code or not line or line.startswith(("#", "|", "![")):
            close()
            continue
        if line.startswith(("- ", "* ")):
            close()
            line = line[2:]
        lines.append(line)
    close()
    return paragraphs


def sentences(paragraph: str) -> list[str]:
    """Return ``paragraph``'s sentences; a period inside a code span or after "et al" ends none."""
    guarded = _CODE_SPAN.sub(lambda m: m.group(0).replace(".", "·").replace("?", "¿").replace("!", "¡"), paragraph)
    guarded = _LABEL.sub("", guarded.replace("et al.", "et al"))
    return [s.strip() for s in _SENTENCE_END.split(guarded) if s.strip()]


def sentence_lengths(text: str) -> list[int]:
    """Return the word count of every prose sentence of ``text``."""
    return [len(s.split()) for p in prose_paragraphs(text) for s in sentences(p)]


def test_sentence_lengths_counts_words_of_each_sentence():
    text = "# Title\n\nOne two three. Four five, `a. b` six!\nSeven et al. eight.\n\n```sh\nnot prose. at all\n```\n"
    assert sentence_lengths(text) == [3, 5, 4]


def test_sentence_lengths_skips_tables_labels_and_images():
    text = "| a. b. | c |\n|---|---|\n\n![x. y](p.png)\n\n**Label.** One two.\n\n- Item one. Item two three.\n"
    assert sentence_lengths(text) == [2, 2, 3]


def test_history_pattern_catches_history_and_spares_plain_words():
    assert HISTORY.search("reproduces seed 000 exactly")
    assert HISTORY.search("as in Round 7 we")
    assert HISTORY.search("see issue 41") and HISTORY.search("fixed in #12")
    assert not HISTORY.search("seeded shuffles, seed_compatible, rounded to 2 places, issue a call")


def test_readme_is_at_most_300_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_readme_prose_median_sentence_is_at_most_20_words():
    lengths = sentence_lengths(README.read_text(encoding="utf-8"))
    assert len(lengths) > 50
    assert statistics.median(lengths) <= MAX_MEDIAN_WORDS


def test_readme_names_no_project_history():
    found = [m.group(0) for m in HISTORY.finditer(README.read_text(encoding="utf-8"))]
    assert found == []


def test_performance_page_is_at_most_250_lines_and_names_no_history():
    text = PERFORMANCE.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_PERFORMANCE_LINES
    assert [m.group(0) for m in HISTORY.finditer(text)] == []


if __name__ == "__main__":
    text = README.read_text(encoding="utf-8")
    lengths = sentence_lengths(text)
    print(f"lines: {len(text.splitlines())}")
    print(f"prose sentences: {len(lengths)}, median {statistics.median(lengths)} words, longest {max(lengths)}")
    print(f"history words: {[m.group(0) for m in HISTORY.finditer(text)]}")
