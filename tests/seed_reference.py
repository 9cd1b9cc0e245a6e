"""Seed 000's ContextManager written out literally from the seed text: the naive reference.

Heuristic tokens, stable sort, md5 + an O(n^2) shingle/Jaccard scan, reorder, then budget.
Tests compare ``ContextManager.seed_compatible()`` with it character for character, and the
benchmark times the engine against it.
"""

from __future__ import annotations

import hashlib
import re

from contextlab.types import ContextResult, Document


class SeedContextManager:
    def __init__(
        self,
        dedup_threshold=0.85,
        min_doc_tokens=5,
        use_lost_in_middle=True,
        summarize_overflow=False,
        max_memory_messages=10,
    ):
        self.dedup_threshold = dedup_threshold
        self.min_doc_tokens = min_doc_tokens
        self.use_lost_in_middle = use_lost_in_middle
        self.summarize_overflow = summarize_overflow  # the seed never reads it
        self.max_memory_messages = max_memory_messages

    @staticmethod
    def _count_tokens(text):
        return int(len(text.split()) * 1.3)

    def build(self, request):
        docs = [d for d in request.documents if self._count_tokens(d.content) >= self.min_doc_tokens]
        docs = sorted(docs, key=lambda d: d.score, reverse=True)
        docs, n_dupes = self._deduplicate(docs)
        if self.use_lost_in_middle and len(docs) > 3:
            docs = self._lost_in_middle_reorder(docs)
        included, excluded, truncated = self._apply_budget(docs, request.max_context_tokens)
        block, citation_map = self._format(included)
        return ContextResult(
            context_block=block,
            included_docs=included,
            excluded_docs=excluded,
            citation_map=citation_map,
            tokens_used=self._count_tokens(block),
            tokens_budget=request.max_context_tokens,
            duplicates_removed=n_dupes,
            truncated=truncated,
        )

    def format_memory(self, memory, max_turns=None):
        max_turns = max_turns or self.max_memory_messages
        recent = memory[-max_turns * 2 :]
        if not recent:
            return ""
        return "\n".join(f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}" for m in recent)

    def _deduplicate(self, docs):
        seen_hashes, seen_shingles, unique, dupes = set(), [], [], 0
        for d in docs:
            h = hashlib.md5(re.sub(r"\s+", " ", d.content.lower()).encode()).hexdigest()
            if h in seen_hashes:
                dupes += 1
                continue
            sh = self._shingles(d.content)
            if any(self._jaccard(sh, s) >= self.dedup_threshold for s in seen_shingles):
                dupes += 1
                continue
            seen_hashes.add(h)
            seen_shingles.append(sh)
            unique.append(d)
        return unique, dupes

    @staticmethod
    def _shingles(text, k=5):
        words = text.lower().split()
        if len(words) < k:
            return {" ".join(words)} if words else set()
        return {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}

    @staticmethod
    def _jaccard(a, b):
        if not a and not b:
            return 0.0
        return len(a & b) / len(a | b)

    @staticmethod
    def _lost_in_middle_reorder(docs):
        result = [None] * len(docs)
        left, right = 0, len(docs) - 1
        for i, d in enumerate(docs):
            if i % 2 == 0:
                result[left] = d
                left += 1
            else:
                result[right] = d
                right -= 1
        return result

    def _apply_budget(self, docs, budget):
        included, excluded, used, truncated = [], [], 0, False
        for d in docs:
            t = self._count_tokens(d.content)
            if used + t <= budget:
                included.append(d)
                used += t
                continue
            truncated = True
            remaining = budget - used
            if remaining > 50:
                words = d.content.split()[: int(remaining / 1.3)]
                partial = Document(
                    content=" ".join(words) + " [...]",
                    score=d.score,
                    source=d.source,
                    metadata={**d.metadata, "truncated": True},
                )
                included.append(partial)
                used += self._count_tokens(partial.content)
            excluded.append(d)
        return included, excluded, truncated

    @staticmethod
    def _format(docs):
        parts, citation_map = [], {}
        for i, d in enumerate(docs, 1):
            citation_map[i] = d.source or f"doc_{i}"
            header = f"--- Source [{i}] {d.source} ---" if d.source else f"--- Source [{i}] ---"
            if d.score < 1.0:
                header += f" (relevance: {d.score:.2f})"
            parts.append(f"{header}\n{d.content}")
        return "\n\n".join(parts), citation_map
