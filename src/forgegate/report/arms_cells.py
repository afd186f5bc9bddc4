"""The three-axis table: one row per comparison, one line per axis, read from the comparison JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgegate.core.kinds import AXES
from forgegate.report.fmt import num, percent

AXIS_TITLES = {"voice": "A. voice", "memorization": "B. not copied", "damage": "C. no damage"}


@dataclass(frozen=True)
class ThreeAxisRow:
    title: str
    primary: str
    cells: tuple[str, str, str]
    gate: str
    label: str


def axis_numbers(kind: str, axis: dict[str, Any]) -> str:
    """The numbers behind one axis's word, worded once for the terminal, the HTML and the Markdown."""
    if kind == "voice":
        ratio = "n/a" if axis.get("ratio") is None else f"{axis['ratio']:.1f}x"
        disagree = " [rules disagree]" if axis.get("floors_disagree") else ""
        return (f"gap {num(axis.get('gap'))} / pairwise floor {num(axis.get('floor_pairwise'))} ({ratio}); "
                f"all-arms {num(axis.get('floor_all_arms'))}{disagree}")
    if kind == "memorization":
        arms = axis.get("arms") or {}
        k, c = arms.get(axis.get("candidate"), {}), arms.get(axis.get("control"), {})
        sat = (axis.get("positive_control") or {}).get("saturated")
        return (f"hit {percent(k.get('hit_rate'))} vs {percent(c.get('hit_rate'))}; max {k.get('max')} vs "
                f"{c.get('max')}; positive control {'saturated' if sat else 'NOT saturated'}")
    parts = []
    for metric, res in (axis.get("metrics") or {}).items():
        arms = res.get("arms") or {}
        k, c = arms.get(axis.get("candidate"), {}), arms.get(axis.get("control"), {})
        parts.append(f"{metric.replace('_', '-')} {percent(k.get('rate'))} vs {percent(c.get('rate'))}")
    return "; ".join(parts)


def _cell(kind: str, axis: dict[str, Any] | None) -> str:
    if axis is None:
        return "not declared"
    return f"{axis.get('gate', '?')}: {axis_numbers(kind, axis)}"


def three_axis_row(comp: dict[str, Any]) -> ThreeAxisRow:
    voice, memorization, damage = AXES
    cells = (_cell(voice, comp.get(voice)), _cell(memorization, comp.get(memorization)),
             _cell(damage, comp.get(damage)))
    return ThreeAxisRow(f"{comp['candidate']} vs {comp['control']}", str(comp.get("primary") or "—"), cells,
                        str(comp["gate"]), str(comp.get("label") or comp["gate"]))


def comparison_dicts(payload: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """A plan run's comparisons; one axis's JSON (voice / memorization / damage) as a one-axis comparison."""
    if kind == "plan":
        return list(payload.get("comparisons") or [])
    return [{"control": payload["control"], "candidate": payload["candidate"], "primary": None, kind: payload,
             "gate": payload["gate"], "label": payload["gate"], "reasons": payload.get("reasons")}]
