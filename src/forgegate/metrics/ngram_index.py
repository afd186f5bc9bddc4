"""A hashed word n-gram index of a corpus, answering "longest verbatim run" by seed-and-extend.

Words: the text is lower-cased, apostrophes (straight or curly) are dropped inside a
word ("don't" -> "dont"), ASCII punctuation and the common Unicode quotes, dashes and
ellipsis separate words; so a copy that only re-punctuates still counts as verbatim.
Each word becomes a 64-bit hash (vectorised over the UTF-8 bytes, no Python loop per
word), every n-word window of the corpus a polynomial hash of its words; the window
hashes are sorted once. A query's windows are looked up in one ``searchsorted`` for a
whole batch, every hit is verified word by word (a window-hash collision never counts),
and the verified seeds are chained: windows hitting consecutive corpus positions are
one verbatim run of ``n - 1 + windows`` words. Windows never cross a file boundary.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

_UNICODE_SEPARATORS = {"\u201c": " ", "\u201d": " ", "\u2014": " ", "\u2013": " ", "\u2026": " ",
                       "\ufeff": " ", "\u00a0": " ", "\u2019": "", "\u2018": ""}
_ASCII_TABLE = bytes(b if chr(b).isalnum() or b >= 128 else 32 for b in range(256))
_PRIME = np.uint64(0x100000001B3)
_MAX_OFFSET = 64
_OFFSET_KEYS: U64 = np.random.default_rng(0x5EED_F0D6E).integers(
    1, np.iinfo(np.uint64).max, size=_MAX_OFFSET, dtype=np.uint64) | np.uint64(1)
"""Fixed per-offset multipliers of the word hash (a constant of the format, not a random state)."""


def normalised_bytes(text: str) -> bytes:
    """The text as words separated by single-byte spaces (see the module docstring)."""
    low = text.lower()
    for char, replacement in _UNICODE_SEPARATORS.items():
        if char in low:
            low = low.replace(char, replacement)
    return low.encode("utf-8").translate(_ASCII_TABLE, b"'")


def words_of(text: str) -> list[str]:
    """The normalised words a verbatim match is counted in."""
    return normalised_bytes(text).decode("utf-8").split()


def word_hashes(text: str) -> U64:
    """One 64-bit hash per normalised word of ``text``."""
    return _hash_bytes(normalised_bytes(text))


def _hash_bytes(normalised: bytes) -> U64:
    data = np.frombuffer(normalised, dtype=np.uint8)
    in_word = data != 32
    if not in_word.any():
        return np.zeros(0, dtype=np.uint64)
    begins = in_word & ~np.concatenate(([False], in_word[:-1]))
    chars = np.flatnonzero(in_word)
    word_no = np.cumsum(begins)[chars] - 1
    offset = chars - np.flatnonzero(begins)[word_no]
    contrib = (data[chars].astype(np.uint64) + np.uint64(1)) * _OFFSET_KEYS[np.minimum(offset, _MAX_OFFSET - 1)]
    return np.asarray(np.add.reduceat(contrib, np.flatnonzero(offset == 0)), dtype=np.uint64)


def _window_hashes(words: U64, n: int) -> U64:
    count = words.size - n + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    hashes = np.zeros(count, dtype=np.uint64)
    for k in range(n):
        hashes = hashes * _PRIME + words[k:k + count]
    return hashes


class NgramIndex:
    """The corpus's n-word windows, hashed and sorted; queries return each text's longest verbatim run."""

    def __init__(self, documents: Sequence[str], n: int) -> None:
        if n < 1:
            raise ValueError("n must be at least 1")
        self.n = n
        per_doc = [word_hashes(doc) for doc in documents]
        # One gap slot after each file, so that no window and no chained run crosses a file boundary.
        gap = np.zeros(1, dtype=np.uint64)
        self.words_hashed: U64 = np.concatenate([part for w in per_doc for part in (w, gap)] or [gap])
        self.words = sum(int(w.size) for w in per_doc)
        doc_of = np.concatenate([np.full(w.size + 1, i, dtype=np.int64) for i, w in enumerate(per_doc)]
                                or [np.zeros(1, dtype=np.int64)])
        doc_of[np.cumsum(np.array([w.size + 1 for w in per_doc], dtype=np.int64)) - 1] = -1
        hashes = _window_hashes(self.words_hashed, n)
        starts, ends = doc_of[:hashes.size], doc_of[n - 1:n - 1 + hashes.size]
        positions = np.flatnonzero((starts == ends) & (starts >= 0))
        # One sorted uint64 array: the window hash's high bits, then the window's position in the
        # low bits (np.sort is several times faster than argsort). Hits are verified word by word.
        self._bits = np.uint64(max(1, int(self.words_hashed.size).bit_length()))
        self._mask = np.uint64((1 << int(self._bits)) - 1)
        self._keys: U64 = np.sort(((hashes[positions] >> self._bits) << self._bits)
                                  | positions.astype(np.uint64))

    def longest_matches(self, texts: Sequence[str]) -> list[int]:
        """For each text, the length in words of its longest verbatim run in the corpus (0: none of n words)."""
        n = self.n
        normalised = [normalised_bytes(t) for t in texts]
        sizes = np.array([len(b.split()) for b in normalised], dtype=np.int64)
        words = _hash_bytes(b" ".join(normalised))
        text_start = np.concatenate(([0], np.cumsum(sizes)))[:-1]
        owner_of_word = np.repeat(np.arange(len(texts)), sizes)
        all_windows = _window_hashes(words, n)
        keep = np.flatnonzero(owner_of_word[:all_windows.size] == owner_of_word[n - 1:n - 1 + all_windows.size])
        if keep.size == 0:
            return [0] * len(texts)
        qh = all_windows[keep]
        q_owner = owner_of_word[keep]
        q_offset = keep - text_start[q_owner]
        prefix = (qh >> self._bits) << self._bits
        order = np.argsort(prefix)
        lo, hi = np.empty_like(order), np.empty_like(order)
        lo[order] = np.searchsorted(self._keys, prefix[order], side="left")
        hi[order] = np.searchsorted(self._keys, prefix[order] | self._mask, side="right")
        counts = hi - lo
        total = int(counts.sum())
        if total == 0:
            return [0] * len(texts)
        query_of = np.repeat(np.arange(qh.size), counts)
        keys = self._keys[np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)]
        corpus_at = (keys & self._mask).astype(np.int64)
        owner, offset = q_owner[query_of], q_offset[query_of]
        span = np.arange(n)
        query_words = words[(text_start[owner] + offset)[:, None] + span]
        verified = np.all(self.words_hashed[corpus_at[:, None] + span] == query_words, axis=1)
        return self._extend(len(texts), owner[verified], offset[verified], corpus_at[verified])

    def _extend(self, count: int, owner: I64, offset: I64, corpus_at: I64) -> list[int]:
        """Chain verified seeds: (offset, p) then (offset+1, p+1) is one run one word longer."""
        best = [0] * count
        hits: dict[int, dict[int, set[int]]] = {}
        for o, off, p in zip(owner.tolist(), offset.tolist(), corpus_at.tolist(), strict=True):
            hits.setdefault(o, {}).setdefault(off, set()).add(p)
        for o, by_offset in hits.items():
            run_next: dict[int, int] = {}
            next_offset = None
            longest = 0
            for off in sorted(by_offset, reverse=True):
                if next_offset != off + 1:
                    run_next = {}
                run = {p: run_next.get(p + 1, 0) + 1 for p in by_offset[off]}
                longest = max(longest, max(run.values()))
                run_next, next_offset = run, off
            best[o] = longest + self.n - 1
        return best
