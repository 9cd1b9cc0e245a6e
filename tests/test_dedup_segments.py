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


def test_segment_index_directory_search_finds_what_a_binary_search_does_in_crowded_buckets():
    from contextlab.stages.dedup.segment_index import _Directory

    small = _Directory(1 << 17)  # 8 bits of directory at least: keys differ in their top bits
    tiny = np.array([3, 7 << 56, 7 << 56, (7 << 56) + 9, 255 << 56], dtype=np.uint64)
    small.add(tiny[:2])
    small.add(tiny[2:])
    probe = np.array([0, 3, 4, 7 << 56, (7 << 56) + 1, (7 << 56) + 9, 1 << 63, (1 << 64) - 1], dtype=np.uint64)
    assert small.search(tiny, probe, "left").tolist() == [0, 0, 1, 1, 3, 3, 4, 5]
    assert small.search(tiny, probe, "right").tolist() == [0, 1, 1, 3, 3, 4, 4, 5]
    rng = np.random.default_rng(7)
    spread = rng.integers(0, 1 << 62, 6000, dtype=np.int64).astype(np.uint64) << np.uint64(2)
    crowd = np.uint64(5 << 50) + rng.integers(0, 1 << 20, 3000).astype(np.uint64)  # one bucket
    batches = [
        np.sort(np.concatenate((spread[:4000], crowd[:1000]))),
        np.sort(np.concatenate((spread[4000:], crowd[1000:]))),
    ]
    directory = _Directory(1 << 17)
    for batch in batches:
        directory.add(batch)
    keys = np.sort(np.concatenate(batches))
    values = np.concatenate(
        (
            keys,
            keys + np.uint64(1),
            keys - np.uint64(1),
            crowd + np.uint64(3),
            rng.integers(0, 1 << 63, 4000, dtype=np.int64).astype(np.uint64),
        )
    )
    for side in ("left", "right"):
        assert np.array_equal(directory.search(keys, values, side), np.searchsorted(keys, values, side))
