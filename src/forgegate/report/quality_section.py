"""T_GPT's Q_task / Q_fact guardrails as report data: per arm with CIs, the stage change, the gate's reasons.

Reads ``semantic.quality`` of a plan run's typed result (``results.quality``) and the guardrail reasons the
gate wrote (``semantic: Q_task guardrail`` / ``semantic: Q_task scored``); nothing is recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.report.fmt import num, with_ci
from forgegate.report.table import Table
from forgegate.results.base import Estimate, ReasonModel
from forgegate.results.plan_run import PlanSemantic
from forgegate.results.quality import QualityChange, QualityTable


@dataclass(frozen=True)
class QualityView:
    tables: tuple[tuple[str, Table], ...]
    reasons: tuple[ReasonModel, ...]


def measure_title(table: QualityTable) -> str:
    """``Q_task — T_GPT: "..." — margin 0.1`` (or: reported, no margin)."""
    margin = table.margin
    guard = f"guardrail margin {margin:g}" if margin is not None else "no margin declared: reported only"
    return f"{table.measure} ({guard}). T_GPT v0.8.1: \"{table.spec}\""


def _change_cell(change: QualityChange) -> str:
    return with_ci(Estimate(value=change.value, ci=change.ci))


def measure_table(table: QualityTable) -> Table:
    """One row per task, one across tasks, one for the stage change; a column per arm (value [95% CI]).

    The per-task and per-arm cells are keyed by the plan's task ids and arm names; each is read by attribute."""
    arms = tuple(table.across_tasks)
    rows: list[tuple[str, ...]] = []
    for task, cells in table.tasks.items():
        rows.append((task, str(table.scorers.get(task, "")), *(with_ci(cells.get(a)) for a in arms)))
    for miss in table.missing:
        rows.append((miss.task, f"{table.scorers.get(miss.task, '')}: not scored", *_padded((miss.why,), len(arms))))
    rows.append(("across tasks", "", *(with_ci(table.across_tasks[a]) for a in arms)))
    change = table.change
    rows.append((f"change {change.reference} -> {change.contracted}", f"{change.n_tasks} task(s)",
                 *_padded((_change_cell(change), f"loss {num(change.loss)}"), len(arms))))
    return Table(("task", "scorer", *arms), tuple(rows))


def _padded(cells: tuple[str, ...], width: int) -> tuple[str, ...]:
    return (*cells, *("" for _ in range(width - len(cells))))[:max(width, 1)]


def quality_lines(semantic: PlanSemantic | None) -> list[str]:
    """The terminal's lines: per measure, the across-task value per arm, the change, and the gate's reasons."""
    view = quality_view(semantic)
    if view is None or semantic is None or not semantic.quality:
        return []
    lines: list[str] = []
    for measure, table in semantic.quality.items():
        across = "; ".join(f"{arm} {with_ci(cell)}" for arm, cell in table.across_tasks.items())
        change = table.change
        margin = table.margin
        lines.append(f"{measure} across tasks: {across}; change {change.reference} -> {change.contracted} "
                     f"{_change_cell(change)} (margin {'none' if margin is None else f'{margin:g}'})")
    lines += [f"  {r.outcome.value}: {r.detail}" for r in view.reasons]
    return lines


def quality_view(semantic: PlanSemantic | None) -> QualityView | None:
    """The plan's quality tables and their guardrail reasons; None when the plan declares neither measure."""
    quality = semantic.quality if semantic is not None else None
    if not quality or semantic is None:
        return None
    prefixes = tuple(f"semantic: {m} " for m in quality)
    reasons = tuple(r for r in semantic.reasons if r.rule.startswith(prefixes))
    return QualityView(tuple((measure_title(t), measure_table(t)) for t in quality.values()), reasons)
