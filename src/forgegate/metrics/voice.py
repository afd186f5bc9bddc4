"""Axis A, voice: each arm's Burrows's Delta to the author's held-out reference, per seed, with controls.

Per arm: Delta per seed (all the seed's generations counted together), the mean and
the spread (max - min). The verdict is PASS when ``delta(control) - delta(candidate)``
exceeds the floor (pairwise by default, see ``noise_floor``); both floors are reported.

Controls, every run. A Delta that cannot tell the author from a model that never saw the author is blind, and its
gap means nothing. The reference is cut into ``folds`` interleaved folds; for each, a model fitted on the other
folds scores the held-out fold, sampled across all its segments like an arm's beats and cut to the median size of
the compared arms' scored per-seed text (control and candidate only: another arm in the run moves nothing of this
pair's; seeds with no Delta are left out; never longer, so the check is conservative). Every held-out Delta must be
below the control arm's lowest per-seed Delta, and below every contrast text's Delta (other authors, when given).
Otherwise the axis is INVALID.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forgegate.core.declared import FloorRule
from forgegate.errors import InputError
from forgegate.metrics.delta import DeltaModel, fit_delta_model, normalise_for_voice, reference_segments
from forgegate.metrics.generations import Generation, by_arm_seed
from forgegate.metrics.noise_floor import ArmSeeds, FloorComparison, compare_arms, seed_problem

DEFAULT_FOLDS = 5
CONTRAST_CHUNKS = 5


@dataclass(frozen=True)
class ReferenceInfo:
    """What the Delta model was fitted on."""

    words: int
    segments: int
    segment_words: int
    n_features: int


@dataclass(frozen=True)
class VoiceControls:
    """Held-out reference folds vs the control arm (and contrast texts): can the instrument see the voice?"""

    heldout_deltas: tuple[float, ...]
    chunk_words: int
    control_arm: str
    control_arm_min: float | None
    contrasts: tuple[tuple[str, float], ...]

    @property
    def heldout_max(self) -> float:
        return max(self.heldout_deltas)

    @property
    def passed(self) -> bool:
        if self.control_arm_min is None or self.heldout_max >= self.control_arm_min:
            return False
        return all(self.heldout_max < delta for _, delta in self.contrasts)


@dataclass(frozen=True)
class VoiceComparison:
    """The two arms' per-seed Deltas compared under the plan's floor rule, or why they could not be (the rule's
    inputs; ``gate.voice.voice_rule_reason`` writes the reason)."""

    author: str
    control: str
    candidate: str
    floor_rule: FloorRule
    comparison: FloorComparison | None
    problem: str | None
    """Why the seeds give no floor (None when ``comparison`` is set)."""
    control_mean: float | None
    candidate_mean: float | None

    @property
    def floors_disagree(self) -> bool | None:
        """Whether the two floor rules give different verdicts on the gap; None when nothing was compared."""
        return floors_disagree(self.comparison) if self.comparison is not None else None


@dataclass(frozen=True)
class VoiceReport:
    """Everything axis A measured for one control/candidate pair, with its controls (no verdict: ``gate.voice``
    decides, handed these by the pipeline, ``pipeline/axes.py``)."""

    author: str
    reference: ReferenceInfo
    arms: Mapping[str, ArmSeeds]
    words: Mapping[str, Mapping[int, int]]
    control: str
    candidate: str
    floor_rule: FloorRule
    rule: VoiceComparison
    controls: VoiceControls

    @property
    def comparison(self) -> FloorComparison | None:
        return self.rule.comparison

    @property
    def floors_disagree(self) -> bool | None:
        """Whether the two floor rules give different verdicts on the gap; None when nothing was compared."""
        return self.rule.floors_disagree


def parse_floor_rule(value: str) -> FloorRule:
    """'pairwise' or 'all-arms'; anything else is an InputError."""
    if value == "pairwise":
        return "pairwise"
    if value == "all-arms":
        return "all-arms"
    raise InputError("--floor", f"'{value}' is not pairwise or all-arms")


def floors_disagree(comp: FloorComparison) -> bool:
    """True when the pairwise and the all-arms floor give different verdicts on the same gap."""
    return comp.improves(comp.floor_pairwise) != comp.improves(comp.floor_all_arms)


def voice_rule(author: str, arms: Mapping[str, ArmSeeds], control: str, candidate: str,
               floor_rule: FloorRule = "pairwise") -> VoiceComparison:
    """The floor comparison of the two arms (what the voice rule, ``gate.voice``, reads), or why there is none."""
    problem = seed_problem(arms, control, candidate)
    if problem is not None:
        return VoiceComparison(author, control, candidate, floor_rule, None, problem, None, None)
    return VoiceComparison(author, control, candidate, floor_rule, compare_arms(arms, control, candidate), None,
                           arms[control].measured()[0], arms[candidate].measured()[0])


def _chunks(text: str, words: int, count: int) -> list[str]:
    """Up to ``count`` windows of ``words`` normalised words, spread evenly through ``text``."""
    tokens = normalise_for_voice(text).split()
    if len(tokens) < words:
        return [" ".join(tokens)] if tokens else []
    starts = sorted({round(i * (len(tokens) - words) / max(count - 1, 1)) for i in range(count)})
    return [" ".join(tokens[s:s + words]) for s in starts]


def heldout_deltas(segments: Sequence[str], *, n_features: int, words_per_segment: int, folds: int,
                   chunk_words: int) -> list[float]:
    """Delta of each interleaved reference fold under a model fitted on the other folds.

    The held-out text is spread like an arm's: the first ``chunk_words / len(fold)`` words of
    every segment of the fold (about ``chunk_words`` words in all, never more than the fold has).
    """
    deltas: list[float] = []
    for fold in range(folds):
        train = [s for i, s in enumerate(segments) if i % folds != fold]
        held = [s.split() for i, s in enumerate(segments) if i % folds == fold]
        per = -(-chunk_words // len(held))
        pieces = [" ".join(words[:per]) for words in held]
        model = fit_delta_model(train, n_features=n_features, words_per_segment=words_per_segment)
        delta = model.delta(pieces)
        if delta is not None:
            deltas.append(delta)
    return deltas


def _arm_deltas(model: DeltaModel, generations: Sequence[Generation]
                ) -> tuple[dict[str, ArmSeeds], dict[str, dict[int, int]]]:
    arms: dict[str, ArmSeeds] = {}
    words: dict[str, dict[int, int]] = {}
    for arm, seeds in by_arm_seed(generations).items():
        values: dict[int, float] = {}
        words[arm] = {}
        for seed, gens in seeds.items():
            texts = [g.text for g in gens]
            words[arm][seed] = sum(len(t.split()) for t in texts)
            delta = model.delta(texts)
            if delta is not None:
                values[seed] = delta
        arms[arm] = ArmSeeds(arm, values)
    return arms, words


def voice_report(author: str, reference_text: str, generations: Sequence[Generation], *, control: str,
                 candidate: str, segment_words: int, n_features: int = 300, folds: int = DEFAULT_FOLDS,
                 floor_rule: FloorRule = "pairwise", contrasts: Mapping[str, str] | None = None,
                 reference_label: str = "reference") -> VoiceReport:
    """Axis A's measurements for one control/candidate pair: Deltas per arm and seed, floors, controls."""
    if not author.strip():
        raise InputError("--author", "the author is required and may not be blank",
                         hint="name the author whose voice the reference holds, e.g. --author Hemingway")
    segments = reference_segments(reference_text, segment_words)
    needed = 2 * folds
    if len(segments) < needed:
        count = len(normalise_for_voice(reference_text).split())
        raise InputError(reference_label, f"the reference has {count} words: {len(segments)} segments of "
                         f"{segment_words} words, at least {needed} needed",
                         hint="give a longer held-out reference or a smaller segment size")
    model = fit_delta_model(segments, n_features=n_features, words_per_segment=segment_words)
    arms, words = _arm_deltas(model, generations)
    # the size of text actually scored by the two compared arms (lv-hemingway: "A candidate's verdict must not
    # depend on which other arms happened to be generated"); a seed with no Delta does not shrink the chunks
    per_seed_words = [w for name in (control, candidate) for seed, w in words.get(name, {}).items()
                      if seed in arms[name].by_seed]
    chunk = max(1, int(statistics.median(per_seed_words))) if per_seed_words else segment_words
    held = heldout_deltas(segments, n_features=n_features, words_per_segment=segment_words,
                          folds=folds, chunk_words=chunk)
    contrast_deltas: list[tuple[str, float]] = []
    for label, text in (contrasts or {}).items():
        scores = [d for c in _chunks(text, chunk, CONTRAST_CHUNKS) if (d := model.delta([c])) is not None]
        if not scores:
            raise InputError(label, "the contrast text has no characters to count")
        contrast_deltas.append((label, min(scores)))
    control_arm = arms.get(control)
    controls = VoiceControls(tuple(held), chunk, control,
                             min(control_arm.by_seed.values()) if control_arm and control_arm.by_seed
                             else None, tuple(contrast_deltas))
    rule = voice_rule(author, arms, control, candidate, floor_rule)
    info = ReferenceInfo(len(segments) * segment_words, len(segments), segment_words, model.n_features)
    return VoiceReport(author, info, arms, words, control, candidate, floor_rule, rule, controls)
