"""Arm comparisons as report data: Delta strip plots with both floors, the three-axis table, memorisation.

Reads the typed result of ``forgegate run`` (plan with comparisons) or of one axis command
(``voice`` / ``memorization`` / ``damage``). The only arithmetic is placing the
pass lines on the strip plots: the voice rule ``gap > floor`` is the same statement as
``mean(candidate) < mean(control) - floor``, and the damage rule ``-gap <= floor`` is
``mean(candidate) <= mean(control) + floor``; both lines are labelled with their floor.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.report.arms_cells import ArmsResult, Axis, Compared, comparison_entries, three_axis_row
from forgegate.report.fmt import num, percent
from forgegate.report.plots import RefLine, strip_chart
from forgegate.report.table import Table
from forgegate.results.base import ReasonModel
from forgegate.results.damage import DamageAxis
from forgegate.results.memorization import MemorizationAxis
from forgegate.results.voice import VoiceAxis


@dataclass(frozen=True)
class AxisView:
    axis: str
    gate: str
    facts: tuple[tuple[str, str], ...]
    tables: tuple[tuple[str, Table], ...]
    charts: tuple[str, ...]
    reasons: tuple[ReasonModel, ...]


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
    reasons: tuple[ReasonModel, ...]


def voice_axis(v: VoiceAxis) -> AxisView:
    control, candidate, arms, controls = v.control, v.candidate, v.arms, v.controls
    lines: list[RefLine] = []
    base = arms[control].delta if control in arms else None
    if base is not None and v.floor_pairwise is not None:
        lines.append(RefLine(base - v.floor_pairwise, f"pass line: {control} mean − pairwise floor "
                             f"{v.floor_pairwise:.3f}", "#c62828", "--"))
    if base is not None and v.floor_all_arms is not None:
        lines.append(RefLine(base - v.floor_all_arms, f"all-arms floor {v.floor_all_arms:.3f} "
                             f"(from '{v.floor_all_arms_from}')", "#6a1b9a", ":"))
    lines.append(RefLine(controls.heldout_max, "held-out author text (positive control, max)", "#2e7d32", "-."))
    chart = strip_chart({arm: _seeds(row.delta_by_seed) for arm, row in arms.items()}, lines,
                        ylabel="Burrows's Delta (lower = closer)", title=f"Delta per arm and seed — {v.author}",
                        highlight=[candidate])
    rows = tuple((arm, num(row.delta), num(row.spread),
                  ", ".join(f"{s}: {num(d)}" for s, d in row.delta_by_seed.items()),
                  ", ".join(f"{s}: {w}" for s, w in row.words_by_seed.items()))
                 for arm, row in arms.items())
    control_rows = (("held-out author folds", ", ".join(num(d) for d in controls.heldout_deltas),
                     f"max {num(controls.heldout_max)} < control lowest seed "
                     f"{num(controls.control_arm_min)}"),
                    *((f"contrast '{label}'", num(d), "must score above the held-out max")
                      for label, d in controls.contrasts.items()),
                    ("control passed", str(controls.passed), ""))
    facts = (("author", v.author), ("floor rule", v.floor_rule),
             ("gap (control − candidate)", num(v.gap)), ("pairwise floor", num(v.floor_pairwise)),
             ("all-arms floor", f"{num(v.floor_all_arms)} (from '{v.floor_all_arms_from}')"),
             ("gap / floor", "n/a (zero floor)" if v.ratio is None else f"{v.ratio:.2f}x"),
             ("floors disagree", str(v.floors_disagree)))
    return AxisView("voice", v.gate.value, facts,
                    (("Delta per arm", Table(("arm", "mean Delta", "spread", "per seed", "words per seed"), rows)),
                     ("voice controls", Table(("control", "Delta", "rule"), control_rows))),
                    (chart,), tuple(v.reasons))


def memorization_axis(m: MemorizationAxis) -> AxisView:
    rows: list[tuple[str, ...]] = [
        (arm, str(row.generations), str(row.hits), percent(row.hit_rate), str(row.max),
         ", ".join(f"{s}: {percent(r)}" for s, r in row.hit_rate_by_seed.items()))
        for arm, row in m.arms.items()]
    pos, neg = m.positive_control, m.negative_control
    rows.append(("positive control: corpus passages", str(pos.passages), "—", percent(pos.hit_rate),
                 str(pos.max), f"shortest found {pos.min_found} of {pos.passage_words} words; "
                 f"saturated: {pos.saturated}"))
    rows.append(("negative control: shuffled passages", str(neg.passages), "—", percent(neg.hit_rate),
                 str(neg.max), f"clean: {neg.clean}"))
    facts = (("n (words in a row)", str(m.n)), ("corpus words", str(m.corpus_words)),
             ("hit-rate margin", num(m.hit_rate_margin)), ("max margin (words)", str(m.max_margin)))
    table = Table(("arm", "generations", "hits", "hit rate", "longest run (words)", "per seed / control"),
                  tuple(rows))
    return AxisView("memorization", m.gate.value, facts, (("verbatim n-gram hits, beside the controls", table),),
                    (), tuple(m.reasons))


def damage_axis(d: DamageAxis) -> AxisView:
    control, candidate = d.control, d.candidate
    tables: list[tuple[str, Table]] = []
    charts: list[str] = []
    for metric, res in d.metrics.items():
        arms = res.arms
        label = metric.replace("_", "-")
        rows = tuple((arm, percent(row.rate), num(row.spread), str(row.unmeasured),
                      ", ".join(f"{s}: {percent(r)}" for s, r in row.rate_by_seed.items()))
                     for arm, row in arms.items())
        tables.append((f"{label}: difference {num(res.difference)} vs pairwise floor "
                       f"{num(res.floor_pairwise)} — {res.verdict.value}",
                       Table(("arm", "rate", "spread", "unmeasured", "per seed"), rows)))
        base = arms[control].rate if control in arms else None
        lines = []
        if base is not None and res.floor_pairwise is not None:
            lines.append(RefLine(base + res.floor_pairwise, f"limit: {control} mean + pairwise floor "
                                 f"{res.floor_pairwise:.3f}", "#c62828", "--"))
        if base is not None and res.floor_all_arms is not None:
            lines.append(RefLine(base + res.floor_all_arms, f"all-arms floor {res.floor_all_arms:.3f}",
                                 "#6a1b9a", ":"))
        charts.append(strip_chart({arm: _seeds(row.rate_by_seed) for arm, row in arms.items()}, lines,
                                  ylabel=f"{label} rate", title=f"{label} rate per arm and seed",
                                  highlight=[candidate], rate=True))
    facts = (("word band", "–".join(map(str, d.band))),)
    return AxisView("damage", d.gate.value, facts, tuple(tables), tuple(charts), tuple(d.reasons))


def _seeds(by_seed: dict[str, float]) -> dict[str, float]:
    return {str(seed): float(v) for seed, v in by_seed.items()}


def _axis_view(axis: Axis) -> AxisView:
    if isinstance(axis, VoiceAxis):
        return voice_axis(axis)
    if isinstance(axis, MemorizationAxis):
        return memorization_axis(axis)
    return damage_axis(axis)


def comparison_view(comp: Compared) -> ComparisonView:
    axes = tuple(_axis_view(axis) for _, axis in comp.axes() if axis is not None)
    row = three_axis_row(comp)
    return ComparisonView(title=row.title, control=comp.control, candidate=comp.candidate, primary=row.primary,
                          gate=row.gate, label=row.label, axes=axes, cells=row.cells, reasons=tuple(comp.reasons))


def comparisons(result: ArmsResult) -> tuple[ComparisonView, ...]:
    """Every comparison of a plan run; one axis's result is shown as a one-axis comparison."""
    return tuple(comparison_view(c) for c in comparison_entries(result))
