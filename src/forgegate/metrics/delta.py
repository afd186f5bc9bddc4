"""Burrows's Delta over character bigrams, standard method, fitted on a reference's segments.

Text is normalised the same way on both sides (lower case, curly quotes straightened,
dashes unified, Gutenberg ``_italic_`` underscores dropped, whitespace runs collapsed
to one space). The features are the reference's ``n_features`` most frequent
character bigrams (ties broken by code point). A text's feature vector is each
bigram's count over all the text's bigrams (relative frequency); it is z-scored with
the mean and standard deviation (ddof=1) of the same frequencies over the reference's
fixed-size word segments. The reference profile is the mean over segments, so its
z-vector is zero and Delta is the mean absolute z of the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

_TRANSLATE = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                            "\u2014": "-", "\u2013": "-", "_": None, "\x00": " "})
_SEPARATOR = "\x00"
"""Joins texts for one counting pass; bigrams touching it are never features and are not counted."""

U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]


def normalise_for_voice(text: str) -> str:
    """The canonical form both the reference and the generations are counted in."""
    return " ".join(text.translate(_TRANSLATE).replace("--", "-").lower().split())


def _bigram_codes(text: str) -> U64:
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if codes.size < 2:
        return np.zeros(0, dtype=np.uint64)
    return np.asarray((codes[:-1] << np.uint64(32)) | codes[1:], dtype=np.uint64)


def _decode(code: np.uint64) -> str:
    value = int(code)
    return chr(value >> 32) + chr(value & 0xFFFFFFFF)


def reference_segments(text: str, words_per_segment: int) -> list[str]:
    """Consecutive windows of exactly ``words_per_segment`` normalised words (a short tail is dropped)."""
    words = normalise_for_voice(text).split()
    return [" ".join(words[i:i + words_per_segment])
            for i in range(0, len(words) - words_per_segment + 1, words_per_segment)]


@dataclass(frozen=True)
class DeltaModel:
    """Features, and their mean and sd over the reference segments; scores texts by Delta."""

    features: U64
    mean: F64
    std: F64
    segments: int
    segment_words: int

    @property
    def n_features(self) -> int:
        return int(self.features.size)

    def feature_strings(self) -> list[str]:
        return [_decode(code) for code in self.features]

    def frequencies(self, texts: Sequence[str]) -> F64 | None:
        """Relative frequency of each feature over all the texts' bigrams; None when there are none."""
        joined = _SEPARATOR.join(normalise_for_voice(t) for t in texts)
        pairs = _bigram_codes(joined)
        total = pairs.size - 2 * joined.count(_SEPARATOR)
        if total <= 0:
            return None
        idx = np.searchsorted(self.features, pairs)
        idx = np.minimum(idx, self.features.size - 1)
        hit = self.features[idx] == pairs
        counts = np.bincount(idx[hit], minlength=self.features.size)
        return np.asarray(counts / total, dtype=np.float64)

    def delta(self, texts: Sequence[str]) -> float | None:
        """Mean |z| of the texts' feature frequencies against the reference profile; None for no text."""
        freq = self.frequencies(texts)
        if freq is None:
            return None
        return float(np.mean(np.abs((freq - self.mean) / self.std)))


def fit_delta_model(segments: Sequence[str], *, n_features: int, words_per_segment: int) -> DeltaModel:
    """Pick the reference's most frequent bigrams and their per-segment mean and sd (ddof=1).

    Features whose frequency does not vary across segments (sd 0) cannot be z-scored and are dropped.
    """
    if len(segments) < 2:
        raise ValueError("a Delta model needs at least 2 reference segments")
    pairs = _bigram_codes(" ".join(segments))
    codes, counts = np.unique(pairs, return_counts=True)
    order = np.lexsort((codes, -counts))[:n_features]
    features = np.sort(codes[order])
    probe = DeltaModel(features, np.zeros(features.size), np.ones(features.size), len(segments),
                       words_per_segment)
    rows = [probe.frequencies([s]) for s in segments]
    if any(row is None for row in rows):
        raise ValueError("a reference segment has no character bigrams")
    matrix = np.vstack([row for row in rows if row is not None])
    mean = matrix.mean(axis=0)
    std = matrix.std(axis=0, ddof=1)
    keep = std > 0
    return DeltaModel(features[keep], mean[keep], std[keep], len(segments), words_per_segment)
