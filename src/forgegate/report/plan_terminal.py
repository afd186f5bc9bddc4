"""Terminal rendering of a plan run: each instrument's detail, then the verdict table and the gate."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.rules import THREE_AXIS_RULE
from forgegate.core.verdict import Gate
from forgegate.report.arms_cells import Axis, axis_numbers, comparison_entries
from forgegate.report.metrics_terminal import gate_markup, print_damage, print_memorization, print_verdict, print_voice
from forgegate.report.plan_terminal_parts import primary_text, print_gloss, print_semantic
from forgegate.results import PlanRunResult
from forgegate.results.base import ReasonModel


def _axis_cell(axis: Axis | None) -> str:
    """One axis of the table: "not declared", or the verdict word and the numbers behind it (``axis_numbers``)."""
    if axis is None:
        return "not declared"
    return f"{gate_markup(axis.gate)} {escape(axis_numbers(axis))}"


def print_plan_result(result: PlanRunResult, console: Console, *, details: bool = True) -> None:
    """The plan run's typed result (what ``--json`` writes): header, each instrument, the tables, the gate."""
    plan, s = result.plan, result.generation
    console.print(f"PLAN [bold]{escape(plan.name)}[/] ({escape(plan.path)}) plan_hash {plan.plan_hash}")
    if result.author:
        console.print(f"author: [bold]{escape(result.author)}[/]")
    console.print(f"store {escape(result.store)}: {s.planned} planned, {s.skipped_finished} already "
                  f"stored, {s.generated} generated, {s.failed} failed, {s.missing} missing")
    entries = comparison_entries(result)
    axes = any(axis is not None for comp in entries for _, axis in comp.axes())
    if details and axes:
        for comp in entries:
            console.rule(f"{escape(comp.candidate)} vs {escape(comp.control)}")
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
        for comp in entries:
            table.add_row(escape(f"{comp.candidate} vs {comp.control}"), escape(comp.primary or ""),
                          *(_axis_cell(axis) for _, axis in comp.axes()), gate_markup(comp.gate))
        console.print(table)
    elif result.comparisons:
        table = Table(title="comparisons")
        for column in ("candidate vs control", "primary endpoint", "verdict"):
            table.add_column(column)
        for entry in result.comparisons:
            table.add_row(escape(f"{entry.candidate} vs {entry.control}"), escape(primary_text(entry.primary_value)),
                          gate_markup(entry.gate))
        console.print(table)
    if result.ships is not None:
        print_ships(result.ships.arm, result.ships.outcome, result.ships.reasons, console)
    record = result.leak_audit
    if record is not None:
        console.print(f"leak audit on the lock ({escape(record.origin)}): gate {gate_markup(Gate(record.gate))} "
                      f"finding {escape(record.finding)}, sha256 {record.sha256[:16]}")
    print_verdict(result, console, title="GATE")


def print_ships(arm: str | None, outcome: Gate, reasons: Sequence[ReasonModel], console: Console) -> None:
    """The ship choice between the tied candidates: every step of the tiebreak, then which one ships (or none)."""
    console.rule("SHIPS (pre-registered tiebreak)")
    for reason in reasons:
        console.print(f"  {gate_markup(reason.outcome)} {escape(reason.rule)}: {escape(reason.detail)}")
    word = "" if outcome is Gate.PASS else f" ({gate_markup(outcome)})"
    console.print(f"SHIPS: [bold]{escape(arm) if arm is not None else 'none'}[/]{word}")
