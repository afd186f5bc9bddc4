"""Axis C, damage (``forgegate damage``; a plan comparison's ``damage`` block): ran-on and out-of-band rates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Self

from forgegate.core.declared import DamageMetric
from forgegate.core.verdict import Gate, Verdict
from forgegate.results.base import SCHEMA_VERSION, Gated, SchemaVersion, Strict, reason_models

if TYPE_CHECKING:  # read by attribute only: importing forgegate.metrics here would load numpy with every result
    from forgegate.metrics.damage import DamageReport, MetricResult


class DamageArm(Strict):
    rate_by_seed: dict[str, float]
    rate: float | None
    spread: float | None
    unmeasured: int


class DamageMetricResult(Strict):
    arms: dict[str, DamageArm]
    difference: float | None
    floor_pairwise: float | None
    floor_all_arms: float | None
    verdict: Gate

    @staticmethod
    def of(result: MetricResult, outcome: Gate) -> DamageMetricResult:
        comp = result.comparison
        return DamageMetricResult(
            arms={name: DamageArm(rate_by_seed={str(s): v for s, v in arm.by_seed.items()}, rate=arm.mean,
                                  spread=arm.spread, unmeasured=result.unmeasured.get(name, 0))
                  for name, arm in result.arms.items()},
            difference=-comp.gap if comp else None, floor_pairwise=comp.floor_pairwise if comp else None,
            floor_all_arms=comp.floor_all_arms if comp else None, verdict=outcome)


class DamageAxis(Gated):
    band: tuple[int, int]
    control: str
    candidate: str
    metrics: dict[DamageMetric, DamageMetricResult]
    verdict: str

    @classmethod
    def from_report(cls, report: DamageReport, verdict: Verdict, outcomes: Mapping[str, Gate], **extra: Any) -> Self:
        """The axis as the instrument measured it and the gate decided it (``verdict``, and each metric's
        ``outcomes`` keyed as ``report.metrics``): the one place its figures become these fields."""
        return cls(gate=verdict.gate, reasons=reason_models(verdict), band=report.band,
                   control=report.control, candidate=report.candidate,
                   metrics={result.metric: DamageMetricResult.of(result, outcomes[key])
                            for key, result in report.metrics.items()},
                   verdict=verdict.gate.value, **extra)


class DamageResult(DamageAxis):
    """``forgegate damage --json``."""

    kind: Literal["damage"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: DamageReport, verdict: Verdict, outcomes: Mapping[str, Gate]) -> DamageResult:
        return cls.from_report(report, verdict, outcomes, kind="damage", schema_version=SCHEMA_VERSION)
