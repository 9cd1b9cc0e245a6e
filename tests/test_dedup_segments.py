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
    n = np.array([4, 16, 40, 150])
    # 4 words: no edit allowed with any partner, one segment, the whole text. 16 words: its
    # longest partner has 18 (2 edits allowed), so 3 segments at least, 5 while each keeps 3
    # words; 40: partners up to 47 words (7 edits), 8 + 4; 150: the longest text, 22 + 1 + 4.
    assert geo.count[n].tolist() == [1, 5, 12, 27]
    assert geo.seglen[n].tolist() == [4, 3, 3, 5]
    assert Geometry(200, 0.85).reach[150] == 26  # a 176-word partner may be 26 edits away


def test_templated_short_texts_have_no_candidates_and_keep_every_document():
    texts = [f"document {i} says little" for i in range(3000)]
    assert candidate_pairs(hash_words(texts), 0.85).size == 0
    docs = [Document(t, score=0.5) for t in texts]
    result = ContextManager(tokenizer="heuristic").build(PromptRequest("", docs, max_context_tokens=20))
    assert result.duplicates_removed == 0 and len(result.trace) == 3000
