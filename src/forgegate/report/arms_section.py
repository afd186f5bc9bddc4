"""Arm comparisons as report data: Delta strip plots with both floors, the three-axis table, memorisation.

Reads the JSON of ``forgegate run`` (plan with comparisons) or of one axis command
(``voice`` / ``memorization`` / ``damage --json``). The only arithmetic is placing the
pass lines on the strip plots: the voice rule ``gap > floor`` is the same statement as
``mean(candidate) < mean(control) - floor``, and the damage rule ``-gap <= floor`` is
``mean(candidate) <= mean(control) + floor``; both lines are labelled with their floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgegate.core.kinds import AXES
from forgegate.report.arms_cells import comparison_dicts, three_axis_row
from forgegate.report.fmt import num, percent
from forgegate.report.plots import RefLine, strip_chart
from forgegate.report.table import Table


@dataclass(frozen=True)
class AxisView:
    axis: str
    gate: str
    facts: tuple[tuple[str, str], ...]
    tables: tuple[tuple[str, Table], ...]
    charts: tuple[str, ...]
    reasons: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class ComparisonView:
    title: str
    control: str
    candidate: str
    primary: str
    gate: str
    label: str
    axes: tuple[AxisView, ...]
    cells: tuple[str, str, str]
    reasons: tuple[dict[str, str], ...]


def _seeds(block: dict[str, Any], key: str) -> dict[str, float]:
    return {str(seed): float(v) for seed, v in (block.get(key) or {}).items() if v is not None}


def voice_axis(v: dict[str, Any]) -> AxisView:
    control, candidate = v["control"], v["candidate"]
    arms = v.get("arms") or {}
    lines: list[RefLine] = []
    base = arms.get(control, {}).get("delta")
    if base is not None and v.get("floor_pairwise") is not None:
        lines.append(RefLine(base - v["floor_pairwise"], f"pass line: {control} mean − pairwise floor "
                             f"{v['floor_pairwise']:.3f}", "#c62828", "--"))
    if base is not None and v.get("floor_all_arms") is not None:
        lines.append(RefLine(base - v["floor_all_arms"], f"all-arms floor {v['floor_all_arms']:.3f} "
                             f"(from '{v.get('floor_all_arms_from')}')", "#6a1b9a", ":"))
    controls = v.get("controls") or {}
    if controls.get("heldout_max") is not None:
        lines.append(RefLine(controls["heldout_max"], "held-out author text (positive control, max)", "#2e7d32", "-."))
    chart = strip_chart({arm: _seeds(row, "delta_by_seed") for arm, row in arms.items()}, lines,
                        ylabel="Burrows's Delta (lower = closer)", title=f"Delta per arm and seed — {v['author']}",
                        highlight=[candidate])
    rows = tuple((arm, num(row.get("delta")), num(row.get("spread")),
                  ", ".join(f"{s}: {num(d)}" for s, d in (row.get("delta_by_seed") or {}).items()),
                  ", ".join(f"{s}: {w}" for s, w in (row.get("words_by_seed") or {}).items()))
                 for arm, row in arms.items())
    contrasts = controls.get("contrasts") or {}
    control_rows = (("held-out author folds", ", ".join(num(d) for d in controls.get("heldout_deltas", [])),
                     f"max {num(controls.get('heldout_max'))} < control lowest seed "
                     f"{num(controls.get('control_arm_min'))}"),
                    *((f"contrast '{label}'", num(d), "must score above the held-out max")
                      for label, d in contrasts.items()),
                    ("control passed", str(controls.get("passed")), ""))
    facts = (("author", str(v.get("author"))), ("floor rule", str(v.get("floor_rule"))),
             ("gap (control − candidate)", num(v.get("gap"))), ("pairwise floor", num(v.get("floor_pairwise"))),
             ("all-arms floor", f"{num(v.get('floor_all_arms'))} (from '{v.get('floor_all_arms_from')}')"),
             ("gap / floor", "n/a (zero floor)" if v.get("ratio") is None else f"{v['ratio']:.2f}x"),
             ("floors disagree", str(v.get("floors_disagree"))))
    return AxisView("voice", v["gate"], facts,
                    (("Delta per arm", Table(("arm", "mean Delta", "spread", "per seed", "words per seed"), rows)),
                     ("voice controls", Table(("control", "Delta", "rule"), control_rows))),
                    (chart,), tuple(v.get("reasons") or ()))


def memorization_axis(m: dict[str, Any]) -> AxisView:
    rows: list[tuple[str, ...]] = [
        (arm, str(row.get("generations")), str(row.get("hits")), percent(row.get("hit_rate")), str(row.get("max")),
         ", ".join(f"{s}: {percent(r)}" for s, r in (row.get("hit_rate_by_seed") or {}).items()))
        for arm, row in (m.get("arms") or {}).items()]
    pos, neg = m.get("positive_control") or {}, m.get("negative_control") or {}
    rows.append(("positive control: corpus passages", str(pos.get("passages")), "—", percent(pos.get("hit_rate")),
                 str(pos.get("max")), f"shortest found {pos.get('min_found')} of {pos.get('passage_words')} words; "
                 f"saturated: {pos.get('saturated')}"))
    rows.append(("negative control: shuffled passages", str(neg.get("passages")), "—", percent(neg.get("hit_rate")),
                 str(neg.get("max")), f"clean: {neg.get('clean')}"))
    facts = (("n (words in a row)", str(m.get("n"))), ("corpus words", str(m.get("corpus_words"))),
             ("hit-rate margin", num(m.get("hit_rate_margin"))), ("max margin (words)", str(m.get("max_margin"))))
    table = Table(("arm", "generations", "hits", "hit rate", "longest run (words)", "per seed / control"),
                  tuple(rows))
    return AxisView("memorization", m["gate"], facts, (("verbatim n-gram hits, beside the controls", table),), (),
                    tuple(m.get("reasons") or ()))


def damage_axis(d: dict[str, Any]) -> AxisView:
    control, candidate = d["control"], d["candidate"]
    tables: list[tuple[str, Table]] = []
    charts: list[str] = []
    for metric, res in (d.get("metrics") or {}).items():
        arms = res.get("arms") or {}
        label = metric.replace("_", "-")
        rows = tuple((arm, percent(row.get("rate")), num(row.get("spread")), str(row.get("unmeasured", 0)),
                      ", ".join(f"{s}: {percent(r)}" for s, r in (row.get("rate_by_seed") or {}).items()))
                     for arm, row in arms.items())
        tables.append((f"{label}: difference {num(res.get('difference'))} vs pairwise floor "
                       f"{num(res.get('floor_pairwise'))} — {res.get('verdict')}",
                       Table(("arm", "rate", "spread", "unmeasured", "per seed"), rows)))
        base = arms.get(control, {}).get("rate")
        lines = []
        if base is not None and res.get("floor_pairwise") is not None:
            lines.append(RefLine(base + res["floor_pairwise"], f"limit: {control} mean + pairwise floor "
                                 f"{res['floor_pairwise']:.3f}", "#c62828", "--"))
        if base is not None and res.get("floor_all_arms") is not None:
            lines.append(RefLine(base + res["floor_all_arms"], f"all-arms floor {res['floor_all_arms']:.3f}",
                                 "#6a1b9a", ":"))
        charts.append(strip_chart({arm: _seeds(row, "rate_by_seed") for arm, row in arms.items()}, lines,
                                  ylabel=f"{label} rate", title=f"{label} rate per arm and seed",
                                  highlight=[candidate], rate=True))
    band = d.get("band") or []
    facts = (("word band", "–".join(map(str, band))),)
    return AxisView("damage", d["gate"], facts, tuple(tables), tuple(charts), tuple(d.get("reasons") or ()))


_BUILDERS = {"voice": voice_axis, "memorization": memorization_axis, "damage": damage_axis}


def comparison_view(comp: dict[str, Any]) -> ComparisonView:
    axes = tuple(_BUILDERS[k](comp[k]) for k in AXES if comp.get(k))
    row = three_axis_row(comp)
    return ComparisonView(title=row.title, control=comp["control"], candidate=comp["candidate"], primary=row.primary,
                          gate=row.gate, label=row.label, axes=axes, cells=row.cells,
                          reasons=tuple(comp.get("reasons") or ()))


def comparisons(payload: dict[str, Any], kind: str) -> tuple[ComparisonView, ...]:
    """Every comparison of a plan run; one axis's JSON is shown as a one-axis comparison."""
    return tuple(comparison_view(c) for c in comparison_dicts(payload, kind))
