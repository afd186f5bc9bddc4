"""Terminal rendering of a plan run: each instrument's detail, then the verdict table and the gate."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.gate.arms import gate_label
from forgegate.gate.verdict import Gate, Verdict
from forgegate.metrics.console import print_damage, print_memorization, print_verdict, print_voice
from forgegate.metrics.noise_floor import format_ratio
from forgegate.run.plan_score import AXIS_INSTRUMENTS, ComparisonResult, PlanResult
from forgegate.run.plan_views import primary_text, print_gloss, print_semantic

_COLOUR = {Gate.PASS: "bold green", Gate.FAIL: "bold red", Gate.HOLD: "bold yellow",
           Gate.INCOMPLETE: "bold yellow", Gate.INVALID: "bold magenta"}


def _word(verdict: Verdict | None) -> str:
    if verdict is None:
        return "—"
    return f"[{_COLOUR[verdict.gate]}]{escape(gate_label(verdict.gate))}[/]"


def _voice_cell(result: ComparisonResult) -> str:
    report = result.voice
    if report is None:
        return "not declared"
    comp = report.comparison
    if comp is None:
        return _word(report.verdict)
    return (f"{_word(report.verdict)} gap {comp.gap:+.3f} / floor {comp.floor_pairwise:.3f} "
            f"({format_ratio(comp.ratio)}); all-arms {comp.floor_all_arms:.3f}")


def _memorization_cell(result: ComparisonResult) -> str:
    report = result.memorization
    if report is None:
        return "not declared"
    c, k = report.arms.get(report.control), report.arms.get(report.candidate)
    if c is None or k is None:
        return _word(report.verdict)
    return (f"{_word(report.verdict)} hit {k.hit_rate:.3f} vs {c.hit_rate:.3f}; max {k.max} vs {c.max}; "
            f"positive control {'saturated' if report.controls.saturated else 'NOT saturated'}")


def _damage_cell(result: ComparisonResult) -> str:
    report = result.damage
    if report is None:
        return "not declared"
    parts = []
    for metric, res in report.metrics.items():
        k, c = res.arms.get(report.candidate), res.arms.get(report.control)
        if k is not None and c is not None and k.by_seed and c.by_seed:
            parts.append(f"{metric.replace('_', '-')} {k.mean:.3f} vs {c.mean:.3f}")
    return f"{_word(report.verdict)} " + "; ".join(parts)


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
    axes = any(getattr(loaded.plan.instruments, name) is not None for name in AXIS_INSTRUMENTS)
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
        table = Table(title="three-axis verdict")
        for column in ("candidate vs control", "primary", "A. voice", "B. not copied", "C. no damage", "verdict"):
            table.add_column(column)
        for comp in result.comparisons:
            c = comp.comparison
            table.add_row(escape(f"{c.candidate} vs {c.control}"), escape(c.primary), _voice_cell(comp),
                          _memorization_cell(comp), _damage_cell(comp), _word(comp.verdict))
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
    print_verdict(result.verdict, console, title="GATE")
