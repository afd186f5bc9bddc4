"""Axis C's rule (lv-hemingway v2, no damage): each metric's rate no worse than the control's beyond its
seed-spread floor; a metric that cannot be measured on every compared row is INCOMPLETE, never clean.

``metrics/damage.py`` measures the rates and the floors; this module writes the reasons.
"""

from __future__ import annotations

from typing import Protocol

from forgegate.core.verdict import Gate, Reason


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
