"""Axis B, memorisation (``forgegate memorization``; a plan comparison's ``memorization`` block)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from forgegate.core.verdict import Verdict
from forgegate.results.base import SCHEMA_VERSION, Gated, SchemaVersion, Strict, reason_models

if TYPE_CHECKING:  # read by attribute only: importing forgegate.metrics here would load numpy with every result
    from forgegate.metrics.memorization import MemorizationReport


class MemorizationArm(Strict):
    generations: int
    hits: int
    hit_rate: float
    max: int
    hit_rate_by_seed: dict[str, float]
    max_by_seed: dict[str, int]


class PositiveControl(Strict):
    passages: int
    passage_words: int
    hit_rate: float
    max: int
    min_found: int
    saturated: bool


class NegativeControl(Strict):
    passages: int
    hit_rate: float
    max: int
    clean: bool


class MemorizationAxis(Gated):
    n: int
    corpus_words: int
    control: str
    candidate: str
    hit_rate_margin: float
    max_margin: int
    arms: dict[str, MemorizationArm]
    positive_control: PositiveControl
    negative_control: NegativeControl
    verdict: str

    @classmethod
    def from_report(cls, report: MemorizationReport, verdict: Verdict, **extra: Any) -> Self:
        """The axis as the instrument measured it and the gate decided it: the one place its figures become
        these fields."""
        c = report.controls
        return cls(
            gate=verdict.gate, reasons=reason_models(verdict), n=report.n,
            corpus_words=report.corpus_words, control=report.control, candidate=report.candidate,
            hit_rate_margin=report.hit_rate_margin, max_margin=report.max_margin,
            arms={name: MemorizationArm(generations=arm.generations, hits=arm.hits, hit_rate=arm.hit_rate,
                                        max=arm.max,
                                        hit_rate_by_seed={str(s): v for s, v in arm.hit_rate_seeds.by_seed.items()},
                                        max_by_seed={str(s): int(v) for s, v in arm.max_seeds.by_seed.items()})
                  for name, arm in report.arms.items()},
            positive_control=PositiveControl(passages=c.passages, passage_words=c.passage_words,
                                             hit_rate=c.positive_hit_rate, max=c.positive_max,
                                             min_found=c.positive_min_found, saturated=c.saturated),
            negative_control=NegativeControl(passages=c.passages, hit_rate=c.negative_hit_rate, max=c.negative_max,
                                             clean=c.negative_clean),
            verdict=verdict.gate.value, **extra)


class MemorizationResult(MemorizationAxis):
    """``forgegate memorization --json``: the axis plus the corpus files and the control seed."""

    kind: Literal["memorization"]
    schema_version: SchemaVersion
    corpus: list[str] | None = None
    control_seed: int | None = None

    @classmethod
    def of(cls, report: MemorizationReport, verdict: Verdict, corpus: list[str] | None = None,
           control_seed: int | None = None) -> MemorizationResult:
        return cls.from_report(report, verdict, kind="memorization", schema_version=SCHEMA_VERSION, corpus=corpus,
                               control_seed=control_seed)
