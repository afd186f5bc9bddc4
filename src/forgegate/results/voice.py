"""Axis A, voice (``forgegate voice``; a plan comparison's ``voice`` block): Burrows's Delta per arm and seed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from forgegate.core.declared import FloorRule
from forgegate.core.verdict import Verdict
from forgegate.results.base import SCHEMA_VERSION, Gated, SchemaVersion, Strict, reason_models

if TYPE_CHECKING:  # read by attribute only: importing forgegate.metrics here would load numpy with every result
    from forgegate.metrics.voice import VoiceReport


class VoiceReference(Strict):
    words: int
    segments: int
    segment_words: int
    features: int
    paths: list[str] | None = None
    """The reference files (``forgegate voice`` writes them; a plan records its inputs' hashes instead)."""


class VoiceArm(Strict):
    delta_by_seed: dict[str, float]
    delta: float | None
    spread: float | None
    words_by_seed: dict[str, int]


class VoiceControlsModel(Strict):
    heldout_deltas: list[float]
    heldout_max: float
    chunk_words: int
    control_arm_min: float | None
    contrasts: dict[str, float]
    passed: bool


class VoiceAxis(Gated):
    """The voice axis as a plan comparison carries it."""

    author: str
    reference: VoiceReference
    control: str
    candidate: str
    arms: dict[str, VoiceArm]
    floor_rule: FloorRule
    floor_pairwise: float | None
    floor_all_arms: float | None
    floor_all_arms_from: str | None
    floors_disagree: bool | None
    gap: float | None
    ratio: float | None
    controls: VoiceControlsModel
    verdict: str
    """The gate word again (older readers look for it here)."""

    @classmethod
    def from_report(cls, report: VoiceReport, verdict: Verdict, **extra: Any) -> Self:
        """The axis as the instrument measured it and the gate decided it: the one place its figures become
        these fields."""
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


class VoiceResult(VoiceAxis):
    """``forgegate voice --json``."""

    kind: Literal["voice"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: VoiceReport, verdict: Verdict, reference_paths: list[str] | None = None) -> VoiceResult:
        result = cls.from_report(report, verdict, kind="voice", schema_version=SCHEMA_VERSION)
        if reference_paths is not None:
            result.reference.paths = reference_paths
        return result
