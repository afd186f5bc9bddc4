"""Terminal rendering of a plan run: each instrument's detail, then the verdict table and the gate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.verdict import Verdict
from forgegate.metrics.damage import DamageReport
from forgegate.metrics.memorization import MemorizationReport
from forgegate.metrics.noise_floor import format_ratio
from forgegate.metrics.voice import VoiceReport
from forgegate.pipeline.plan_score import AXIS_INSTRUMENTS, PlanResult
from forgegate.report.metrics_terminal import gate_markup, print_damage, print_memorization, print_verdict, print_voice
from forgegate.report.plan_views import primary_text, print_gloss, print_semantic


def _word(verdict: Verdict | None) -> str:
    return "—" if verdict is None else gate_markup(verdict.gate)


class _Report(Protocol):
    @property
    def verdict(self) -> Verdict: ...


R = TypeVar("R", bound=_Report)


def _cell(report: R | None, detail: Callable[[R], str]) -> str:
    """One axis of the table: "not declared", or the verdict word and the numbers behind it."""
    if report is None:
        return "not declared"
    text = detail(report)
    return f"{_word(report.verdict)} {text}" if text else _word(report.verdict)


def _voice_detail(report: VoiceReport) -> str:
    comp = report.comparison
    if comp is None:
        return ""
    return (f"gap {comp.gap:+.3f} / floor {comp.floor_pairwise:.3f} "
            f"({format_ratio(comp.ratio)}); all-arms {comp.floor_all_arms:.3f}")


def _memorization_detail(report: MemorizationReport) -> str:
    c, k = report.arms.get(report.control), report.arms.get(report.candidate)
    if c is None or k is None:
        return ""
    return (f"hit {k.hit_rate:.3f} vs {c.hit_rate:.3f}; max {k.max} vs {c.max}; "
            f"positive control {'saturated' if report.controls.saturated else 'NOT saturated'}")


def _damage_detail(report: DamageReport) -> str:
    parts = []
    for metric, res in report.metrics.items():
        k, c = res.arms.get(report.candidate), res.arms.get(report.control)
        if k is not None and c is not None and k.by_seed and c.by_seed:
            parts.append(f"{metric.replace('_', '-')} {k.mean:.3f} vs {c.mean:.3f}")
    return "; ".join(parts)


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
            table.add_row(escape(f"{c.candidate} vs {c.control}"), escape(c.primary),
                          _cell(comp.voice, _voice_detail), _cell(comp.memorization, _memorization_detail),
                          _cell(comp.damage, _damage_detail), _word(comp.verdict))
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
