"""Axis B, not copied: longest verbatim n-gram of each generation against the training corpus.

Per arm: hit rate (generations sharing at least ``n`` consecutive words with the corpus)
and max (the longest verbatim run, in words; 0 when no run reaches ``n``), overall and
per seed, beside the control arm that never saw the corpus. The pass rule is the
plan's: the candidate may exceed the control's hit rate by at most ``hit_rate_margin``
and its max by at most ``max_margin`` words.

Controls, every run. Positive: passages cut from the corpus files themselves, as long
as the compared arms' median generation (control and candidate, never another arm's), must all
be found at full length (hit rate 1.0, max = passage length); if not, the zeroes are blind
and the axis is INVALID. Negative: the same passages with their words shuffled must (nearly)
never hit (at most 10%); if they do, the index reports matches that are not there and the
axis is INVALID.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from forgegate.metrics.generations import Generation, by_arm_seed
from forgegate.metrics.ngram_index import NgramIndex, words_of
from forgegate.metrics.noise_floor import ArmSeeds

NEGATIVE_MAX_HIT_RATE = 0.10
DEFAULT_PASSAGES = 20


@dataclass(frozen=True)
class ArmMemorization:
    """One arm's verbatim-match figures."""

    arm: str
    generations: int
    hits: int
    max: int
    hit_rate_seeds: ArmSeeds
    max_seeds: ArmSeeds

    @property
    def hit_rate(self) -> float:
        return self.hits / self.generations if self.generations else 0.0


@dataclass(frozen=True)
class MemorizationControls:
    """Corpus passages must saturate; shuffled passages must not hit."""

    passages: int
    passage_words: int
    positive_hit_rate: float
    positive_max: int
    positive_min_found: int
    negative_hit_rate: float
    negative_max: int

    @property
    def saturated(self) -> bool:
        return (self.passages > 0 and self.positive_hit_rate == 1.0
                and self.positive_min_found == self.passage_words)

    @property
    def negative_clean(self) -> bool:
        return self.passages > 0 and self.negative_hit_rate <= NEGATIVE_MAX_HIT_RATE


@dataclass(frozen=True)
class MemorizationReport:
    """Everything axis B measured for one control/candidate pair, with both controls (no verdict:
    ``gate.memorization`` decides, handed these by the pipeline, ``pipeline/axes.py``)."""

    n: int
    corpus_words: int
    arms: dict[str, ArmMemorization]
    controls: MemorizationControls
    control: str
    candidate: str
    hit_rate_margin: float
    max_margin: int

    @property
    def negative_max_hit_rate(self) -> float:
        """The most the shuffled (negative) control may hit before the index is not trusted."""
        return NEGATIVE_MAX_HIT_RATE


def sample_passages(documents: Sequence[str], words: int, count: int, rng: np.random.Generator) -> list[str]:
    """``count`` raw-text passages of exactly ``words`` normalised words, cut from random corpus places."""
    sizes = np.array([len(doc) for doc in documents], dtype=np.float64)
    if words < 1 or sizes.sum() == 0:
        return []
    passages: list[str] = []
    for _ in range(count * 20):
        if len(passages) == count:
            break
        doc = documents[int(rng.choice(len(documents), p=sizes / sizes.sum()))]
        start = int(rng.integers(0, len(doc)))
        while start < len(doc) and not doc[start].isspace():
            start += 1
        taken: list[str] = []
        total = 0
        for token in doc[start:start + words * 40 + 200].split():
            total += len(words_of(token))
            taken.append(token)
            if total >= words:
                break
        if total == words:
            passages.append(" ".join(taken))
    return passages


def run_controls(index: NgramIndex, documents: Sequence[str], passage_words: int,
                 rng: np.random.Generator, count: int = DEFAULT_PASSAGES) -> MemorizationControls:
    """Positive (corpus passages) and negative (shuffled passages) controls on ``index``."""
    passages = sample_passages(documents, passage_words, count, rng)
    found = index.longest_matches(passages)
    shuffled = [" ".join(rng.permutation(np.array(words_of(p), dtype=object)).tolist()) for p in passages]
    shuffled_found = index.longest_matches(shuffled)
    k = len(passages)
    return MemorizationControls(
        passages=k, passage_words=passage_words,
        positive_hit_rate=sum(f > 0 for f in found) / k if k else 0.0,
        positive_max=max(found, default=0), positive_min_found=min(found, default=0),
        negative_hit_rate=sum(f > 0 for f in shuffled_found) / k if k else 0.0,
        negative_max=max(shuffled_found, default=0))


def arm_figures(index: NgramIndex, generations: Sequence[Generation]) -> dict[str, ArmMemorization]:
    """Hit rate and max for every arm, overall and per seed (one batched index query)."""
    longest = index.longest_matches([g.text for g in generations])
    found = {id(g): run for g, run in zip(generations, longest, strict=True)}
    arms: dict[str, ArmMemorization] = {}
    for arm, seeds in by_arm_seed(generations).items():
        runs = {seed: [found[id(g)] for g in gens] for seed, gens in seeds.items()}
        flat = [r for rs in runs.values() for r in rs]
        arms[arm] = ArmMemorization(
            arm, len(flat), sum(r > 0 for r in flat), max(flat, default=0),
            ArmSeeds(arm, {s: sum(r > 0 for r in rs) / len(rs) for s, rs in runs.items()}),
            ArmSeeds(arm, {s: float(max(rs)) for s, rs in runs.items()}))
    return arms


def memorization_report(documents: Sequence[str], generations: Sequence[Generation], *, control: str,
                        candidate: str, n: int = 8, hit_rate_margin: float, max_margin: int,
                        rng: np.random.Generator, index: NgramIndex | None = None,
                        passages: int = DEFAULT_PASSAGES) -> MemorizationReport:
    """Axis B for one control/candidate pair, with both controls. Pass ``index`` to reuse one."""
    if index is None:
        index = NgramIndex(documents, n)
    elif index.n != n:
        raise ValueError(f"the index was built for n={index.n}, not n={n}")
    arms = arm_figures(index, generations)
    # passages as long as the compared arms' median generation: another arm in the run moves nothing of this pair's
    # (lv-hemingway: "A candidate's verdict must not depend on which other arms happened to be generated")
    lengths = [len(words_of(g.text)) for g in generations if g.arm in (control, candidate)]
    passage_words = max(1, int(statistics.median(lengths))) if lengths else n
    controls = run_controls(index, documents, passage_words, rng, passages)
    return MemorizationReport(n, index.words, arms, controls, control, candidate, hit_rate_margin, max_margin)
