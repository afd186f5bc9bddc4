"""The three-axis table: one row per comparison, one line per axis, read from the typed comparison."""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.verdict import Gate
from forgegate.report.fmt import num, percent
from forgegate.results import DamageResult, MemorizationResult, PlanRunResult, VoiceResult
from forgegate.results.base import ReasonModel
from forgegate.results.damage import DamageAxis
from forgegate.results.memorization import MemorizationAxis
from forgegate.results.voice import VoiceAxis

AXIS_TITLES = {"voice": "A. voice", "memorization": "B. not copied", "damage": "C. no damage"}

ArmsResult = PlanRunResult | VoiceResult | MemorizationResult | DamageResult
"""A result whose report section is the arms comparison: a plan run, or one axis's command."""
Axis = VoiceAxis | MemorizationAxis | DamageAxis


@dataclass(frozen=True)
class Compared:
    """One comparison as a report shows it: a plan's comparison, or one axis's result as a one-axis comparison."""

    control: str
    candidate: str
    primary: str | None
    voice: VoiceAxis | None
    memorization: MemorizationAxis | None
    damage: DamageAxis | None
    gate: Gate
    label: str
    reasons: list[ReasonModel]

    def axes(self) -> tuple[tuple[str, Axis | None], ...]:
        """(axis name, its block or None) in the table's order, A. voice to C. no damage."""
        return ("voice", self.voice), ("memorization", self.memorization), ("damage", self.damage)


@dataclass(frozen=True)
class ThreeAxisRow:
    title: str
    primary: str
    cells: tuple[str, str, str]
    gate: str
    label: str


def axis_numbers(axis: Axis) -> str:
    """The numbers behind one axis's word, worded once for the terminal, the HTML and the Markdown."""
    if isinstance(axis, VoiceAxis):
        ratio = "n/a" if axis.ratio is None else f"{axis.ratio:.1f}x"
        disagree = " [rules disagree]" if axis.floors_disagree else ""
        return (f"gap {num(axis.gap)} / pairwise floor {num(axis.floor_pairwise)} ({ratio}); "
                f"all-arms {num(axis.floor_all_arms)}{disagree}")
    if isinstance(axis, MemorizationAxis):
        k, c = axis.arms.get(axis.candidate), axis.arms.get(axis.control)
        sat = axis.positive_control.saturated
        return (f"hit {percent(k and k.hit_rate)} vs {percent(c and c.hit_rate)}; max {k and k.max} vs "
                f"{c and c.max}; positive control {'saturated' if sat else 'NOT saturated'}")
    parts = []
    for metric, res in axis.metrics.items():
        rk, rc = res.arms.get(axis.candidate), res.arms.get(axis.control)
        parts.append(f"{metric.replace('_', '-')} {percent(rk and rk.rate)} vs {percent(rc and rc.rate)}")
    return "; ".join(parts)


def _cell(axis: Axis | None) -> str:
    if axis is None:
        return "not declared"
    return f"{axis.gate.value}: {axis_numbers(axis)}"


def three_axis_row(comp: Compared) -> ThreeAxisRow:
    voice, memorization, damage = (_cell(axis) for _, axis in comp.axes())
    return ThreeAxisRow(f"{comp.candidate} vs {comp.control}", comp.primary or "—", (voice, memorization, damage),
                        comp.gate.value, comp.label or comp.gate.value)


def comparison_entries(result: ArmsResult) -> list[Compared]:
    """A plan run's comparisons; one axis's result (voice / memorization / damage) as a one-axis comparison."""
    if isinstance(result, PlanRunResult):
        return [Compared(c.control, c.candidate, c.primary, c.voice, c.memorization, c.damage, c.gate, c.label,
                         c.reasons) for c in result.comparisons]
    return [Compared(result.control, result.candidate, None,
                     result if isinstance(result, VoiceResult) else None,
                     result if isinstance(result, MemorizationResult) else None,
                     result if isinstance(result, DamageResult) else None,
                     result.gate, result.gate.value, result.reasons)]
