"""Axis C's rule (lv-hemingway v2, no damage): each metric's rate no worse than the control's beyond its
seed-spread floor; a metric that cannot be measured on every compared row is INCOMPLETE, never clean.

``metrics/damage.py`` measures the rates and the floors; this module writes the reasons and the axis's verdict
(:func:`damage_verdict`), which the pipeline asks for (``pipeline/axes.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import axis_verdict


class RateFloors(Protocol):
    """What the rule reads of ``metrics.noise_floor.FloorComparison`` (gap = control - candidate)."""

    @property
    def gap(self) -> float: ...
    @property
    def floor_pairwise(self) -> float: ...
    def not_worse(self, floor: float) -> bool: ...


def damage_unmeasured(label: str, problem: str) -> Reason:
    """A damage metric that could not be measured (rows without the field, or seeds without a floor)."""
    return Reason(label, Gate.INCOMPLETE, problem)


def damage_reason(label: str, control: str, candidate: str, rate_control: float, rate_candidate: float,
                  comp: RateFloors) -> Reason:
    """PASS when the candidate's rate is no worse than the control's beyond the pairwise floor."""
    ok = comp.not_worse(comp.floor_pairwise)
    detail = (f"{label} rate {candidate} {rate_candidate:.3f} vs {control} {rate_control:.3f}: "
              f"{0.0 - comp.gap:+.3f} against its seed-spread floor {comp.floor_pairwise:.3f}"
              + ("" if ok else " (worse beyond the floor)"))
    numbers = {"rate_candidate": rate_candidate, "rate_control": rate_control,
               "difference": 0.0 - comp.gap, "floor": comp.floor_pairwise}
    return Reason(label, Gate.PASS if ok else Gate.FAIL, detail, numbers)


class DamageMetricMeasured(Protocol):
    """What the rule reads of one measured metric (``metrics.damage.MetricResult``)."""

    @property
    def label(self) -> str: ...
    @property
    def control(self) -> str: ...
    @property
    def candidate(self) -> str: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def comparison(self) -> RateFloors | None: ...
    @property
    def rate_control(self) -> float | None: ...
    @property
    def rate_candidate(self) -> float | None: ...


class DamageMeasured(Protocol):
    """What the rule reads of axis C's measurements (``metrics.damage.DamageReport``)."""

    @property
    def metrics(self) -> Mapping[str, DamageMetricMeasured]: ...


@dataclass(frozen=True)
class DamageVerdict:
    """Axis C decided: the axis's verdict and each metric's reason (keyed as the measurements are)."""

    verdict: Verdict
    by_metric: Mapping[str, Reason]


def damage_metric_reason(metric: DamageMetricMeasured) -> Reason:
    """One metric's reason: INCOMPLETE when it could not be compared, else the floor rule."""
    comp, control_rate, candidate_rate = metric.comparison, metric.rate_control, metric.rate_candidate
    if comp is None or control_rate is None or candidate_rate is None:
        return damage_unmeasured(metric.label, metric.problem or f"cannot measure {metric.label}")
    return damage_reason(metric.label, metric.control, metric.candidate, control_rate, candidate_rate, comp)


def damage_verdict(measured: DamageMeasured) -> DamageVerdict:
    """Axis C's verdict: every metric's reason, combined as every axis's are (``gate.arms.axis_verdict``)."""
    by_metric = {name: damage_metric_reason(metric) for name, metric in measured.metrics.items()}
    return DamageVerdict(axis_verdict(by_metric.values()), by_metric)
