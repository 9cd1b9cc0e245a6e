"""The C loops of the default measure (``contextlab/stages/dedup/_kernels.c``) compute what the
numpy code computes: the same word hashes, window hashes, searches and index marks, the same
candidates, and so the same kept set and pairs. Every test runs both ways (``KERNELS`` set to
None is the numpy code); the loops refuse arguments that would read outside their arrays.

The property tests against the brute-force scan (``test_dedup_kept.py``, ``test_dedup_edit.py``)
run with the C loops where they are built; these hold the numpy code to the same answers, so a
machine without a compiler gets them too.
"""

from __future__ import annotations

import shutil
import sysconfig

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab.stages.dedup import find_duplicates, word_hashing
from contextlab.stages.dedup.segment_index import candidate_pairs
from contextlab.stages.dedup.word_runs import hash_words
from tests.test_dedup import overlapping_chunks, prose_words
from tests.test_properties import edited_texts

LOOPS = word_hashing.KERNELS
needs_loops = pytest.mark.skipif(LOOPS is None, reason="the C loops are not built here (see the first test)")

# Every kind of character the word splitter and the lowercasing must agree on: ASCII
# whitespace and the controls str.split() splits on, Unicode spaces, a lone surrogate, an
# astral character, "İ" (which lowercases to two characters), a final sigma.
_CHARACTERS = list("ab XY\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x00\x01\x1b\x85\xa0") + [
    "\u1680",
    "\u2000",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\u200b",
    "é",
    "\u0130",
    "Σ",
    "\U0001f600",
    "\ud800",
]
texts_of_any_characters = st.lists(st.text(alphabet=st.sampled_from(_CHARACTERS), max_size=30), max_size=8)
ascii_texts = st.lists(st.text(alphabet=st.sampled_from(list("ab YZ\t\n\x0b\x1c\x1f\x01.")), max_size=30), max_size=8)


def both_ways(monkeypatch, run):
    """Return ``run()`` with the C loops, then with numpy's code."""
    with_loops = run()
    monkeypatch.setattr(word_hashing, "KERNELS", None)
    try:
        return with_loops, run()
    finally:
        monkeypatch.setattr(word_hashing, "KERNELS", LOOPS)


def test_dedup_kernels_are_built_where_a_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None and shutil.which("cc") is None:
        pytest.skip("no C compiler on this machine: numpy computes the same (the other tests check it)")
    assert LOOPS is not None, (
        "contextlab/stages/dedup/_kernels.c was not built: run scripts/setup.sh again "
        "(pip install -e . builds it; its output says why it could not)"
    )


@needs_loops
@settings(max_examples=300, deadline=None)
@given(st.one_of(texts_of_any_characters, ascii_texts), st.booleans())
def test_dedup_kernels_hash_every_word_as_numpy_does(texts, spacing):
    from contextlab.stages.dedup.word_hashing import _hash_words

    saved = word_hashing.KERNELS
    try:
        in_c = _hash_words(texts, spacing=spacing)
        word_hashing.KERNELS = None
        in_numpy = _hash_words(texts, spacing=spacing)
    finally:
        word_hashing.KERNELS = saved
    for a, b in zip(in_c, in_numpy, strict=False):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@needs_loops
def test_dedup_kernels_window_hashes_and_word_runs_agree(monkeypatch):
    texts = overlapping_chunks(prose_words(), size=40, stride=30, seed=2)[:50]
    wh = hash_words(texts)
    for length in range(1, 9):
        hi = wh.size - length + 1
        in_c, in_numpy = both_ways(monkeypatch, lambda: wh.window_hashes(3, hi, length))
        assert np.array_equal(in_c, in_numpy)
        starts = np.arange(3, hi, 7)
        assert np.array_equal(in_c[starts - 3], wh.runs(starts, np.full(starts.size, length)))


@needs_loops
def test_dedup_kernels_search_and_mark_like_numpy():
    from contextlab.stages.dedup.segment_index import _Bitmap, _Directory

    rng = np.random.default_rng(1)
    keys = np.sort(rng.integers(0, 1 << 63, 5000, dtype=np.uint64) << np.uint64(1))
    keys[100:140] = keys[100]  # a crowded bucket
    values = np.concatenate((keys[::3], rng.integers(0, 1 << 63, 3000, dtype=np.uint64), keys[:5] + np.uint64(1)))
    directory = _Directory(keys.size)
    bitmap = _Bitmap(keys.size)
    marked_bits, counted = bitmap.table.copy(), directory.sizes.copy()
    LOOPS.mark_keys(keys, marked_bits, int(bitmap.shift), counted, int(directory.shift))
    saved = word_hashing.KERNELS
    try:
        word_hashing.KERNELS = None
        bitmap.add(keys)
        directory.add(keys)
    finally:
        word_hashing.KERNELS = saved
    assert np.array_equal(marked_bits, bitmap.table) and np.array_equal(counted, directory.sizes)
    for right in (False, True):
        side = "right" if right else "left"
        expected = np.searchsorted(keys, values, side)
        for begins, shift in ((directory.begins, int(directory.shift)), (None, 0)):
            found = np.empty(values.size, dtype=np.int64)
            LOOPS.search_keys(keys, begins, shift, values, right, found)
            assert np.array_equal(found, expected)


@needs_loops
@pytest.mark.parametrize("loops", [LOOPS, None])
def test_dedup_kernels_a_layout_of_few_hash_bits_loses_no_pair(monkeypatch, loops):
    # Texts and places numbered in 48 of a key's 64 bits (2**21 texts, one of 2**26 words)
    # leave 16 bits of hash: fewer than the bitmap in front of the index would have, whose
    # slots must then come from the hash bits alone, or a window misses its own segment.
    from contextlab.stages.dedup import kept_pass, segment_index

    class Wide(segment_index.KeyLayout):
        def __init__(self, n_texts, longest_text):
            super().__init__(max(n_texts, 1 << 21), max(longest_text, 1 << 26))

    texts = overlapping_chunks(prose_words(), 300, 60, 40)
    texts += [t.replace(" the ", " a ", 1) for t in texts[::3]]
    expected = find_duplicates(texts, 0.85)
    monkeypatch.setattr(word_hashing, "KERNELS", loops)
    monkeypatch.setattr(kept_pass, "KeyLayout", Wide)
    monkeypatch.setattr(segment_index, "KeyLayout", Wide)
    got = find_duplicates(texts, 0.85)
    assert got.kept == expected.kept and got.pairs == expected.pairs and len(got.pairs) > 20


# 52 hash bits; 16, fewer than the directory's 21 (a hash's keys span several of its buckets)
@pytest.mark.parametrize("n_texts, longest, capacity", [(50, 40, 2400), (1 << 21, 1 << 26, 1 << 20)])
def test_dedup_kernels_index_counts_crowds_and_merges_like_numpy(monkeypatch, n_texts, longest, capacity):
    from contextlab.stages.dedup import segment_index
    from contextlab.stages.dedup.segment_index import KeyLayout, SegmentIndex

    monkeypatch.setattr(segment_index, "_DIRECTORY_FROM", 0)  # a directory, of more bits than the hash
    rng = np.random.default_rng(4)
    layout = KeyLayout(n_texts, longest)
    hashes = rng.integers(0, 1 << 63, 3000, dtype=np.uint64) << np.uint64(1)
    hashes[200:300] = hashes[200]  # a crowd, of segments of many texts
    owners = rng.integers(0, min(n_texts, 50), hashes.size)
    keys = np.unique(layout.pack(hashes, rng.integers(0, longest, hashes.size), owners))
    batches = [np.sort(rng.choice(keys, 600, replace=False)) for _ in range(4)]
    needed = rng.integers(1, 80, n_texts)

    def built(loops):
        monkeypatch.setattr(word_hashing, "KERNELS", loops)
        index = SegmentIndex(layout, n_texts, capacity, needed)
        for batch in batches:
            index.add(np.setdiff1d(batch, index.keys))  # a key is indexed once
        return index

    c, numpy_ = built(LOOPS), built(None)
    assert 64 - layout.owner_bits - layout.place_bits in (52, 16)
    assert int(c._directory.shift) == 64 - (12 if capacity < 4096 else 21)
    assert np.array_equal(c.keys, numpy_.keys) and np.all(c.keys[1:] > c.keys[:-1])
    assert np.array_equal(c.extra, numpy_.extra) and c.extra.any()  # some texts' crowd was left out


@needs_loops
@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
@pytest.mark.parametrize("size", [0, 1, 2, 1000, 70_000])
def test_dedup_kernels_radix_sort_orders_keys_as_numpy_does(dtype, size):
    rng = np.random.default_rng(size)
    top = np.iinfo(dtype).max
    keys = rng.integers(0, top, size, dtype=dtype, endpoint=True)
    keys[: size // 3] = keys[size // 3 : 2 * (size // 3)]  # many equal keys
    if size > 10:
        keys[:5] = 0
        keys[5] = top
        keys[6:600] >>= np.array(40, dtype=dtype)  # keys that share their top digits
    expected = np.sort(keys)
    LOOPS.sort_keys(keys)
    assert np.array_equal(keys, expected)


@needs_loops
@pytest.mark.parametrize("threshold", [0.76, 0.85, 0.9, 0.95, 1.0])
def test_dedup_kernels_find_the_same_duplicates_on_prose_and_records(monkeypatch, threshold):
    footer = "all requests go to the billing team and are answered within two working days"
    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=3)[:300]
    texts += [f"{t} {footer}" for t in texts[:80]] + [f"record {i} about refunds and billing" for i in range(200)]
    texts += ["Ünïcödé text, with an İ and a final Σ", "ünïcödé TEXT, with an i̇ and a final σ"] + texts[:20]
    in_c, in_numpy = both_ways(monkeypatch, lambda: find_duplicates(texts, threshold))
    assert (in_c.kept, in_c.pairs) == (in_numpy.kept, in_numpy.pairs)
    assert len(in_c.pairs) > 20  # 20 copies and the two spellings of one text at least


@needs_loops
@pytest.mark.parametrize("blocks", [(1 << 18, 32), (25, 2)])
def test_dedup_kernels_blocks_splits_and_directories_change_nothing(monkeypatch, blocks):
    from contextlab.stages.dedup import kept_pass, segment_index

    monkeypatch.setattr(kept_pass, "_BLOCK_WORDS", blocks[0])
    monkeypatch.setattr(kept_pass, "_MIN_SPLIT", blocks[1])
    monkeypatch.setattr(kept_pass, "_BUDGET_FLOOR", 2)
    monkeypatch.setattr(segment_index, "_DIRECTORY_FROM", 0)
    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=5)[:200]
    texts += [f"order {i} for the account was billed on the first day" for i in range(150)] + texts[:30]
    in_c, in_numpy = both_ways(monkeypatch, lambda: find_duplicates(texts, 0.85))
    assert (in_c.kept, in_c.pairs) == (in_numpy.kept, in_numpy.pairs)
    pairs_c, pairs_numpy = both_ways(monkeypatch, lambda: candidate_pairs(hash_words(texts), 0.85))
    assert np.array_equal(pairs_c, pairs_numpy) and pairs_c.size > 100


@needs_loops
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_texts(max_size=60), st.sampled_from([0.75, 0.85, 0.95]))
def test_dedup_kernels_property_same_answer_both_ways(raw, threshold):
    from contextlab.stages.dedup.edit_measure import _filtered
    from contextlab.stages.dedup.outcome import DedupOutcome

    outcomes = []
    saved = word_hashing.KERNELS
    try:
        for loops in (saved, None):
            word_hashing.KERNELS = loops
            outcome = DedupOutcome()
            _filtered(raw, threshold, outcome)  # the filtered pass whatever the number of texts
            outcomes.append((outcome.kept, outcome.pairs))
    finally:
        word_hashing.KERNELS = saved
    assert outcomes[0] == outcomes[1]


@needs_loops
def test_dedup_kernels_refuse_arguments_that_would_read_outside_their_arrays():
    words = np.zeros(10, dtype=np.uint64)
    with pytest.raises(ValueError, match="window_hashes"):
        LOOPS.window_hashes(words, 0, 10, 5, 0, np.empty(10, dtype=np.uint64))  # runs past the words
    with pytest.raises(ValueError, match="items of 8 bytes"):
        LOOPS.window_hashes(words.astype(np.uint32), 0, 2, 2, 0, np.empty(2, dtype=np.uint64))
    units = np.frombuffer(b" ab cd", dtype=np.uint8)  # the last word never closes
    inside = word_hashing._inside_table()
    with pytest.raises(ValueError, match="units"):
        LOOPS.hash_words(units, 1, inside, np.empty(4, dtype=np.uint64), np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="inside"):
        LOOPS.hash_words(units, 1, inside[:10], np.empty(4, dtype=np.uint64), np.empty(4, dtype=np.int64))
    keys = np.arange(4, dtype=np.uint64)
    with pytest.raises(ValueError, match="search_keys"):
        LOOPS.search_keys(keys, np.zeros(5, dtype=np.int32), 61, keys, False, np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="begins point outside"):
        LOOPS.search_keys(keys, np.array([0, 9, 9, 9, 9], dtype=np.int32), 62, keys, False, np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="mark_keys"):
        LOOPS.mark_keys(keys, np.zeros(3, dtype=np.uint8), 59, None, 0)
    table = np.zeros((16, 2), dtype=np.uint64)
    with pytest.raises(ValueError, match="code_texts"):  # a text past the words
        LOOPS.code_texts(
            table,
            0,
            4,
            words,
            np.array([8], dtype=np.int64),
            np.array([5], dtype=np.int64),
            np.empty(5, dtype=np.uint32),
            0,
        )
    with pytest.raises(ValueError, match="merge_keys"):  # no room
        LOOPS.merge_keys(np.zeros(4, dtype=np.uint64), 3, np.arange(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="crowd_sizes"):  # a bitmap of the wrong size
        LOOPS.crowd_sizes(keys, 0, keys, np.zeros(3, dtype=np.uint8), 59, None, 0, np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="place_words"):  # no room
        LOOPS.place_words(table, np.arange(20, dtype=np.uint64), np.arange(1, 21, dtype=np.uint64))


@needs_loops
def test_dedup_kernels_join_refuses_a_key_naming_a_text_that_is_not_there():
    from contextlab.stages.dedup.segment_filter import Geometry, block_windows
    from contextlab.stages.dedup.segment_index import KeyLayout, SegmentIndex, join, sorted_segments

    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=3)[:20]
    wh = hash_words(texts)
    geo = Geometry(int(wh.counts.max()), 0.85)
    layout = KeyLayout(wh.counts.size, int(wh.counts.max()))
    everyone = np.arange(wh.counts.size)
    keys = sorted_segments(wh, geo, everyone, layout)
    index = SegmentIndex(layout, wh.counts.size, keys.size, geo.needed_min[wh.counts])
    index.add(keys)
    windows = block_windows(wh, geo, everyone)
    assert join(index, windows, geo, wh.counts, wh.begin, earlier_only=False).size > 0
    index.keys |= layout.owner_mask  # every key now names text 2**bits - 1: past the 20 there are
    with pytest.raises(ValueError, match="outside its arrays"):
        join(index, windows, geo, wh.counts, wh.begin, earlier_only=False)
