"""The word filter's segments: long enough that common words do not join every pair, cut for
the longest partner a text can have, and no pair at the threshold lost."""

from __future__ import annotations

import numpy as np

from contextlab import ContextManager, Document, PromptRequest
from contextlab.stages.dedup.segment_filter import Geometry
from contextlab.stages.dedup.segment_index import candidate_pairs
from contextlab.stages.dedup.word_runs import hash_words


def test_segments_of_short_texts_are_the_pigeonholes_not_single_words():
    geo = Geometry(150, 0.85)
    n = np.array([4, 8, 16, 40, 150])
    # 4 words: no edit allowed with any partner, one segment, the whole text. 8 words: its
    # longest partner has 9 (1 edit), so 2 segments at least, of 4 words. From 16 words on, one
    # length (5) for every text: 16 words may be 2 edits from an 18-word partner, 3 segments;
    # 40 may be 7 from a 47-word one, 8 segments; 150 (the longest text) 22, 30 segments.
    assert geo.count[n].tolist() == [1, 2, 3, 8, 30]
    assert geo.seglen[n].tolist() == [4, 4, 5, 5, 5]
    assert Geometry(200, 0.85).reach[150] == 26  # a 176-word partner may be 26 edits away
    # A text slides windows of its partners' segment lengths: 60 words (51 to 70), only 5.
    assert (geo.low[60], geo.high[60]) == (5, 5)


def test_templated_short_texts_have_no_candidates_and_keep_every_document():
    texts = [f"document {i} says little" for i in range(3000)]
    assert candidate_pairs(hash_words(texts), 0.85).size == 0
    docs = [Document(t, score=0.5) for t in texts]
    result = ContextManager(tokenizer="heuristic").build(PromptRequest("", docs, max_context_tokens=20))
    assert result.duplicates_removed == 0 and len(result.trace) == 3000
