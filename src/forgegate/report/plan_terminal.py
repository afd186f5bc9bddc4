"""Terminal rendering of a plan run: each instrument's detail, then the verdict table and the gate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.kinds import AXES
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import THREE_AXIS_RULE
from forgegate.report.arms_cells import axis_numbers
from forgegate.report.metrics_terminal import gate_markup, print_damage, print_memorization, print_verdict, print_voice
from forgegate.report.plan_views import primary_text, print_gloss, print_semantic

if TYPE_CHECKING:  # the shape rendered; report/ runs nothing of the pipeline's (pyproject's import contract)
    from forgegate.pipeline.plan_score import PlanResult


def _word(verdict: Verdict | None) -> str:
    return "—" if verdict is None else gate_markup(verdict.gate)


def _axis_cell(kind: str, axis: dict[str, Any] | None) -> str:
    """One axis of the table: "not declared", or the verdict word and the numbers behind it (``axis_numbers``)."""
    if axis is None:
        return "not declared"
    return f"{gate_markup(Gate(axis['gate']))} {escape(axis_numbers(kind, axis))}"


def print_plan_result(result: PlanResult, console: Console, *, details: bool = True) -> None:
    gens = result.gens
    loaded = gens.locked.loaded
    s = gens.summary
    console.print(f"PLAN [bold]{escape(loaded.plan.name)}[/] ({escape(str(loaded.path))}) "
                  f"plan_hash {gens.locked.plan_hash}")
    if loaded.plan.author:
        console.print(f"author: [bold]{escape(loaded.plan.author)}[/]")
    console.print(f"store {escape(str(gens.store_path))}: {s.planned} planned, {s.skipped_finished} already "
                  f"stored, {s.generated} generated, {s.failed} failed, {len(gens.missing)} missing")
    axes = any(getattr(loaded.plan.instruments, name) is not None for name in AXES)
    if details and axes:
        for comp in result.comparisons:
            console.rule(f"{escape(comp.comparison.candidate)} vs {escape(comp.comparison.control)}")
            if comp.voice:
                print_voice(comp.voice, console)
            if comp.memorization:
                print_memorization(comp.memorization, console)
            if comp.damage:
                print_damage(comp.damage, console)
    if result.semantic is not None:
        print_semantic(result.semantic, console)
    if result.gloss is not None:
        print_gloss(result.gloss, console, details=details)
    if axes:
        table = Table(title=THREE_AXIS_RULE)
        for column in ("candidate vs control", "primary", "A. voice", "B. not copied", "C. no damage", "verdict"):
            table.add_column(column)
        for comp in result.comparisons:
            c, axes_json = comp.comparison, comp.to_json()
            table.add_row(escape(f"{c.candidate} vs {c.control}"), escape(c.primary),
                          *(_axis_cell(kind, axes_json.get(kind)) for kind in AXES),
                          _word(comp.verdict))
        console.print(table)
    elif result.comparisons:
        table = Table(title="comparisons")
        for column in ("candidate vs control", "primary endpoint", "verdict"):
            table.add_column(column)
        for comp in result.comparisons:
            c = comp.comparison
            table.add_row(escape(f"{c.candidate} vs {c.control}"), escape(primary_text(comp.primary_value)),
                          _word(comp.verdict))
        console.print(table)
    if result.ships is not None:
        print_ships(result.ships.arm, result.ships.outcome, result.ships.reasons, console)
    record = gens.locked.lock.leak_audit
    if record is not None:
        console.print(f"leak audit on the lock ({escape(record['origin'])}): gate {gate_markup(Gate(record['gate']))} "
                      f"finding {escape(record['finding'])}, sha256 {record['sha256'][:16]}")
    print_verdict(result.verdict, console, title="GATE")


def print_ships(arm: str | None, outcome: Gate, reasons: Sequence[Reason], console: Console) -> None:
    """The ship choice between the tied candidates: every step of the tiebreak, then which one ships (or none)."""
    console.rule("SHIPS (pre-registered tiebreak)")
    for reason in reasons:
        console.print(f"  {gate_markup(reason.outcome)} {escape(reason.rule)}: {escape(reason.detail)}")
    word = "" if outcome is Gate.PASS else f" ({gate_markup(outcome)})"
    console.print(f"SHIPS: [bold]{escape(arm) if arm is not None else 'none'}[/]{word}")
