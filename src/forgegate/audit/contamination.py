"""Eval contamination: battery prompts found verbatim or near-verbatim in a training corpus.

Near-verbatim is the lm-evaluation-harness convention: both texts are normalised
(casefold, Unicode punctuation to spaces, whitespace split) and an item counts as
contaminated when any of its word n-grams (n=13 by default) occurs in a corpus text.
An item shorter than n words has no n-gram, so it is matched whole instead: its
normalised word sequence must occur, word-aligned, inside a corpus text; the report says
how many items were matched that way. Prompts and completions are scanned separately
(no n-gram spans the two), as are the earlier turns and the system message of a chat row.
Controls every run: planted battery items are found k/k in a synthetic corpus, and a
synthetic clean corpus comes back with no item matched.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import ahocorasick
import numpy as np

from forgegate.audit.battery_source import BatteryPrompt
from forgegate.audit.corpus import CorpusRow
from forgegate.audit.outcome import AuditFinding, Control, finding_of
from forgegate.audit.synthetic import clean_corpus, nonce_vocabulary
from forgegate.errors import InputError

MatchMethod = Literal["ngram", "whole-item"]
"""How an item was found: by its n-grams, or whole (an item too short for n-grams)."""

LINES_KEPT = 5


def normalise_words(text: str) -> list[str]:
    """Casefolded words with Unicode punctuation treated as space."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return "".join(" " if unicodedata.category(c).startswith("P") else c for c in folded).split()


@dataclass(frozen=True)
class ItemHit:
    """One contaminated battery item: how it was matched and where."""

    item_id: str
    category: str
    method: MatchMethod
    overlap: float  # share of the item's n-grams found (1.0 for a whole-item match)
    lines: tuple[int, ...]  # first corpus lines where it matched
    rows: int  # corpus rows where it matched
    with_answer: bool  # a matching row's completion also holds an expected answer


class ContaminationIndex:
    """The battery's n-grams and short-item phrases, built once and run over any corpus."""

    def __init__(self, battery: list[BatteryPrompt], n: int) -> None:
        if n < 1:
            raise InputError("--ngram", f"n must be at least 1, got {n}")
        self.n = n
        self.battery = battery
        self.words = [normalise_words(item.prompt) for item in battery]
        self.ngram_items: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self.item_ngrams: dict[int, int] = {}
        self._phrases = ahocorasick.Automaton()
        for index, words in enumerate(self.words):
            if len(words) >= n:
                grams = {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}
                self.item_ngrams[index] = len(grams)
                for gram in grams:
                    self.ngram_items[gram].append(index)
            elif words:
                phrase = " " + " ".join(words) + " "
                existing = self._phrases.get(phrase, [])
                self._phrases.add_word(phrase, [*existing, index])
        self.short = [i for i, w in enumerate(self.words) if 0 < len(w) < n]
        self.empty = [i for i, w in enumerate(self.words) if not w]
        if self.short:
            self._phrases.make_automaton()

    def scan(self, corpus: Iterable[CorpusRow]) -> list[ItemHit]:
        """The battery items found in ``corpus``, in battery order."""
        grams_found: dict[int, set[tuple[str, ...]]] = defaultdict(set)
        rows_hit: dict[int, list[CorpusRow]] = defaultdict(list)
        for row in corpus:
            hit_here: set[int] = set()
            texts = [text for exchange in row.exchanges for text in exchange]
            for text in [*texts, row.system or ""]:
                words = normalise_words(text)
                hit_here |= self._scan_ngrams(words, grams_found)
                if self.short:
                    joined = " " + " ".join(words) + " "
                    for _end, indices in self._phrases.iter(joined):
                        hit_here.update(indices)
            for index in hit_here:
                rows_hit[index].append(row)
        hits: list[ItemHit] = []
        for index in sorted(rows_hit):
            item, rows = self.battery[index], rows_hit[index]
            method: MatchMethod
            if index in self.item_ngrams:
                method, overlap = "ngram", len(grams_found[index]) / self.item_ngrams[index]
            else:
                method, overlap = "whole-item", 1.0
            answers = [normalise_words(e) for e in item.expected if normalise_words(e)]
            with_answer = any(_contains(normalise_words(r.completion), a) for r in rows for a in answers)
            hits.append(ItemHit(item.item_id, item.category, method, overlap,
                                tuple(r.line for r in rows[:LINES_KEPT]), len(rows), with_answer))
        return hits

    def _scan_ngrams(self, words: list[str], found: dict[int, set[tuple[str, ...]]]) -> set[int]:
        hit: set[int] = set()
        if not self.ngram_items:
            return hit
        for i in range(len(words) - self.n + 1):
            gram = tuple(words[i:i + self.n])
            for index in self.ngram_items.get(gram, ()):
                found[index].add(gram)
                hit.add(index)
        return hit


def _contains(words: list[str], phrase: list[str]) -> bool:
    return (" " + " ".join(phrase) + " ") in (" " + " ".join(words) + " ")


@dataclass(frozen=True)
class ContaminationReport:
    """The items found in the corpus, how the matching was done, and the controls."""

    n: int
    items: int
    short_items: int
    empty_items: tuple[str, ...]
    corpus_rows: int
    hits: tuple[ItemHit, ...]
    planted: tuple[str, ...]
    planted_found: int
    clean_false_hits: int
    seed: int
    controls: tuple[Control, ...]
    finding: AuditFinding


def run_contamination_audit(
    battery: list[BatteryPrompt], corpus: list[CorpusRow], *, n: int = 13, seed: int, planted: int = 3,
) -> ContaminationReport:
    """Scan ``corpus`` for battery items, with a planted-items and a clean-corpus control."""
    index = ContaminationIndex(battery, n)
    hits = index.scan(corpus)
    rng = np.random.default_rng(seed)
    planted_ids, planted_found = _planted_control(index, rng, planted)
    avoid = {w for words in index.words for w in words}
    clean_hits = index.scan(clean_corpus(rng, rows=40, avoid=avoid))
    controls = (
        Control("planted_found", bool(planted_ids) and planted_found == len(planted_ids),
                f"{planted_found}/{len(planted_ids)} planted battery items found"
                + ("" if planted_ids else " (no battery item has words to plant)")),
        Control("clean_corpus", not clean_hits,
                f"synthetic clean corpus: {len(clean_hits)} items matched (must be 0)"),
    )
    return ContaminationReport(
        n=n, items=len(battery), short_items=len(index.short),
        empty_items=tuple(battery[i].item_id for i in index.empty), corpus_rows=len(corpus),
        hits=tuple(hits), planted=planted_ids, planted_found=planted_found,
        clean_false_hits=len(clean_hits), seed=seed, controls=controls,
        finding=finding_of(bool(hits), AuditFinding.CONTAMINATED),
    )


def _planted_control(
    index: ContaminationIndex, rng: np.random.Generator, k: int
) -> tuple[tuple[str, ...], int]:
    """Plant k items (a long one as an n-word window, upper-cased; short ones verbatim) amid
    nonce filler, one row each, and count the planted items the index finds in their own row."""
    eligible = [i for i, w in enumerate(index.words) if w]
    if not eligible or k < 1:
        return (), 0
    long_first = sorted(eligible, key=lambda i: (i not in index.item_ngrams, float(rng.random())))
    chosen = long_first[:1] + [int(i) for i in rng.permutation(long_first[1:])[: k - 1]]
    filler = nonce_vocabulary(rng, 24, avoid={w for words in index.words for w in words})
    found = 0
    for line, item_index in enumerate(chosen, start=1):
        item = index.battery[item_index]
        if item_index in index.item_ngrams:
            start = int(rng.integers(0, len(index.words[item_index]) - index.n + 1))
            text = " ".join(index.words[item_index][start:start + index.n]).upper()
        else:
            text = item.prompt
        completion = f"{' '.join(filler[12:18])}, {text} {' '.join(filler[18:])}"
        row = CorpusRow(line, " ".join(filler[:12]), completion, chat=False)
        found += any(h.item_id == item.item_id and h.lines == (line,) for h in index.scan([row]))
    return tuple(index.battery[i].item_id for i in chosen), found
