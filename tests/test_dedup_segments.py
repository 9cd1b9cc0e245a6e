"""The word filter's segments stay long enough that common words do not join every pair."""

from __future__ import annotations

import numpy as np

from contextlab import ContextManager, Document, PromptRequest
from contextlab.stages.dedup.segment_filter import _segment_count, candidate_pairs, hash_words


def test_segments_of_short_texts_are_the_pigeonholes_not_single_words():
    n = np.array([4, 16, 40, 150])
    tau = np.array([0, 2, 6, 22])  # floor(0.15 * n): the edits a pair at 0.85 may differ by
    # 4 words, no edit allowed: one segment, the whole text (it used to be four one-word ones).
    assert _segment_count(n, tau).tolist() == [1, 5, 11, 27]


def test_templated_short_texts_have_no_candidates_and_keep_every_document():
    texts = [f"document {i} says little" for i in range(3000)]
    wh = hash_words(texts)
    assert candidate_pairs(wh, np.ones(len(texts), dtype=bool), 0.85).size == 0
    docs = [Document(t, score=0.5) for t in texts]
    result = ContextManager(tokenizer="heuristic").build(PromptRequest("", docs, max_context_tokens=20))
    assert result.duplicates_removed == 0 and len(result.trace) == 3000
