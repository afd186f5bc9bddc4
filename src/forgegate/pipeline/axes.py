"""The arm axes carried from instrument to gate: a measurement and the verdict ``gate/`` gives it, kept together.

The instruments (``metrics/``) measure and return numbers only; this is where the pipeline hands those numbers to
their rule in ``gate/`` and keeps both for the result (``forgegate run`` and the standalone axis commands). The
result models (``results/``) are plain fields: the one place an axis's figures become them is here, by keyword, so
``results/`` names no instrument (docs/architecture.md, Report -> Instruments).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from forgegate.core.verdict import Gate, Verdict
from forgegate.gate.damage import DamageVerdict, damage_verdict
from forgegate.gate.memorization import memorization_verdict
from forgegate.gate.voice import voice_verdict
from forgegate.metrics.damage import DamageReport, MetricResult
from forgegate.metrics.memorization import MemorizationReport
from forgegate.metrics.voice import VoiceReport
from forgegate.results.base import SCHEMA_VERSION, reason_models
from forgegate.results.damage import DamageArm, DamageAxis, DamageMetricResult, DamageResult
from forgegate.results.memorization import (
    MemorizationArm,
    MemorizationAxis,
    MemorizationResult,
    NegativeControl,
    PositiveControl,
)
from forgegate.results.voice import VoiceArm, VoiceAxis, VoiceControlsModel, VoiceReference, VoiceResult

D = TypeVar("D", bound=DamageAxis)
M = TypeVar("M", bound=MemorizationAxis)
V = TypeVar("V", bound=VoiceAxis)


def damage_metric(result: MetricResult, outcome: Gate) -> DamageMetricResult:
    """One damage metric's figures and the gate's word on it."""
    comp = result.comparison
    return DamageMetricResult(
        arms={name: DamageArm(rate_by_seed={str(s): v for s, v in arm.by_seed.items()}, rate=arm.mean,
                              spread=arm.spread, unmeasured=result.unmeasured.get(name, 0))
              for name, arm in result.arms.items()},
        difference=-comp.gap if comp else None, floor_pairwise=comp.floor_pairwise if comp else None,
        floor_all_arms=comp.floor_all_arms if comp else None, verdict=outcome)


def damage_model(cls: type[D], report: DamageReport, verdict: Verdict, outcomes: Mapping[str, Gate],
                 **extra: Any) -> D:
    """Axis C as the instrument measured it and the gate decided it (``verdict``, and each metric's ``outcomes``
    keyed as ``report.metrics``): the one place its figures become these fields."""
    return cls(gate=verdict.gate, reasons=reason_models(verdict), band=report.band,
               control=report.control, candidate=report.candidate,
               metrics={result.metric: damage_metric(result, outcomes[key]) for key, result in report.metrics.items()},
               verdict=verdict.gate.value, **extra)


def memorization_model(cls: type[M], report: MemorizationReport, verdict: Verdict, **extra: Any) -> M:
    """Axis B as the instrument measured it and the gate decided it: the one place its figures become these
    fields."""
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


def voice_model(cls: type[V], report: VoiceReport, verdict: Verdict, **extra: Any) -> V:
    """Axis A as the instrument measured it and the gate decided it: the one place its figures become these
    fields."""
    comp, ref, controls = report.comparison, report.reference, report.controls
    return cls(
        gate=verdict.gate, reasons=reason_models(verdict), author=report.author,
        reference=VoiceReference(words=ref.words, segments=ref.segments, segment_words=ref.segment_words,
                                 features=ref.n_features),
        control=report.control, candidate=report.candidate,
        arms={name: VoiceArm(delta_by_seed={str(s): v for s, v in arm.by_seed.items()}, delta=arm.mean,
                             spread=arm.spread,
                             words_by_seed={str(s): w for s, w in report.words[name].items()})
              for name, arm in report.arms.items()},
        floor_rule=report.floor_rule,
        floor_pairwise=comp.floor_pairwise if comp else None,
        floor_all_arms=comp.floor_all_arms if comp else None,
        floor_all_arms_from=comp.floor_all_arms_from if comp else None,
        floors_disagree=report.floors_disagree,
        gap=comp.gap if comp else None, ratio=comp.ratio if comp else None,
        controls=VoiceControlsModel(heldout_deltas=list(controls.heldout_deltas),
                                    heldout_max=controls.heldout_max, chunk_words=controls.chunk_words,
                                    control_arm_min=controls.control_arm_min,
                                    contrasts=dict(controls.contrasts), passed=controls.passed),
        verdict=verdict.gate.value, **extra)


@dataclass(frozen=True)
class GatedDamage:
    """Axis C: what ``metrics.damage`` measured and what ``gate.damage`` decided on it."""

    report: DamageReport
    decided: DamageVerdict

    @property
    def verdict(self) -> Verdict:
        return self.decided.verdict

    def axis(self) -> DamageAxis:
        """The axis as a plan comparison carries it."""
        return damage_model(DamageAxis, self.report, self.verdict, self._outcomes())

    def result(self) -> DamageResult:
        """``forgegate damage --json``."""
        return damage_model(DamageResult, self.report, self.verdict, self._outcomes(), kind="damage",
                            schema_version=SCHEMA_VERSION)

    def _outcomes(self) -> dict[str, Gate]:
        return {name: reason.outcome for name, reason in self.decided.by_metric.items()}


def gate_damage(report: DamageReport) -> GatedDamage:
    """Hand axis C's measurements to its rule."""
    return GatedDamage(report, damage_verdict(report))


@dataclass(frozen=True)
class GatedMemorization:
    """Axis B: what ``metrics.memorization`` measured (with both controls) and what ``gate.memorization`` decided."""

    report: MemorizationReport
    verdict: Verdict

    def axis(self) -> MemorizationAxis:
        """The axis as a plan comparison carries it."""
        return memorization_model(MemorizationAxis, self.report, self.verdict)

    def result(self, corpus: list[str] | None = None, control_seed: int | None = None) -> MemorizationResult:
        """``forgegate memorization --json``: the axis, the corpus files and the control seed."""
        return memorization_model(MemorizationResult, self.report, self.verdict, kind="memorization",
                                  schema_version=SCHEMA_VERSION, corpus=corpus, control_seed=control_seed)


def gate_memorization(report: MemorizationReport) -> GatedMemorization:
    """Hand axis B's measurements to its rule."""
    return GatedMemorization(report, memorization_verdict(report))


@dataclass(frozen=True)
class GatedVoice:
    """Axis A: what ``metrics.voice`` measured (with its controls) and what ``gate.voice`` decided."""

    report: VoiceReport
    verdict: Verdict

    def axis(self) -> VoiceAxis:
        """The axis as a plan comparison carries it."""
        return voice_model(VoiceAxis, self.report, self.verdict)

    def result(self, reference_paths: list[str] | None = None) -> VoiceResult:
        """``forgegate voice --json``."""
        result = voice_model(VoiceResult, self.report, self.verdict, kind="voice", schema_version=SCHEMA_VERSION)
        if reference_paths is not None:
            result.reference.paths = reference_paths
        return result


def gate_voice(report: VoiceReport) -> GatedVoice:
    """Hand axis A's measurements to its rule."""
    return GatedVoice(report, voice_verdict(report))
