"""Rich terminal rendering of the instrument reports (voice, memorisation, damage, checkpoints, fixture)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.verdict import Gate, Verdict
from forgegate.fixture.builder import FixtureBuild
from forgegate.gate.arms import gate_label
from forgegate.gate.voice import format_ratio
from forgegate.metrics.checkpoints import CheckpointTies
from forgegate.metrics.damage import DamageReport
from forgegate.metrics.memorization import MemorizationReport
from forgegate.metrics.voice import VoiceReport, floors_disagree


def gate_markup(gate: Gate) -> str:
    """The gate word (HOLD spelled out) in its colour, as rich markup."""
    return f"[{gate.colour}]{escape(gate_label(gate))}[/]"


def print_verdict(verdict: Verdict, console: Console, *, title: str = "GATE") -> None:
    """The gate word and every reason that decided it."""
    for reason in verdict.reasons:
        console.print(f"  {gate_markup(reason.outcome)}  {escape(reason.rule)}: {escape(reason.detail)}")
    console.print(f"{title}: {gate_markup(verdict.gate)}")


def print_voice(report: VoiceReport, console: Console) -> None:
    author = escape(report.author)
    ref = report.reference
    console.print(f"VOICE — author: [bold]{author}[/] — reference: held-out {author}, {ref.words} words in "
                  f"{ref.segments} segments of {ref.segment_words}; {ref.n_features} character-bigram features")
    seeds = sorted({s for arm in report.arms.values() for s in arm.by_seed})
    table = Table(title=f"Burrows's Delta to held-out {author} (lower is closer)")
    table.add_column("arm")
    for seed in seeds:
        table.add_column(f"seed {seed}", justify="right")
    table.add_column("delta", justify="right")
    table.add_column("spread", justify="right")
    for name, arm in report.arms.items():
        role = " (control)" if name == report.control else " (candidate)" if name == report.candidate else ""
        cells = [f"{arm.by_seed[s]:.3f}" if s in arm.by_seed else "—" for s in seeds]
        mean = f"{arm.mean:.3f}" if arm.by_seed else "—"
        spread = f"{arm.spread:.3f}" if arm.by_seed else "—"
        table.add_row(escape(name + role), *cells, mean, spread)
    console.print(table)
    comp = report.comparison
    if comp is not None:
        flag = "  [bold yellow]⚠ the two floor rules DISAGREE[/]" if floors_disagree(comp) else ""
        console.print(f"gap {comp.gap:+.3f}; floor pairwise {comp.floor_pairwise:.3f} "
                      f"(ratio {format_ratio(comp.ratio)}), all-arms {comp.floor_all_arms:.3f} "
                      f"(from {escape(comp.floor_all_arms_from)}); verdict uses the {report.floor_rule} "
                      f"floor{flag}")
    print_verdict(report.verdict, console, title=f"VOICE ({author})")


def print_memorization(report: MemorizationReport, console: Console) -> None:
    console.print(f"NOT COPIED — longest verbatim run of ≥{report.n} words against a corpus of "
                  f"{report.corpus_words:,} words")
    table = Table()
    for column in ("arm", "generations", "hits", "hit rate", "max (words)"):
        table.add_column(column, justify="left" if column == "arm" else "right")
    for name, arm in report.arms.items():
        role = " (control)" if name == report.control else " (candidate)" if name == report.candidate else ""
        table.add_row(escape(name + role), str(arm.generations), str(arm.hits), f"{arm.hit_rate:.3f}",
                      str(arm.max))
    c = report.controls
    table.add_row("positive control", str(c.passages), "", f"{c.positive_hit_rate:.3f}",
                  f"{c.positive_max} of {c.passage_words}")
    table.add_row("negative control", str(c.passages), "", f"{c.negative_hit_rate:.3f}", str(c.negative_max))
    console.print(table)
    print_verdict(report.verdict, console, title="NOT COPIED")


def print_damage(report: DamageReport, console: Console) -> None:
    low, high = report.band
    console.print(f"NO DAMAGE — band {low}-{high} words; ran-on = hit the token cap")
    table = Table()
    for column in ("metric", "arm", "rate by seed", "rate", "spread"):
        table.add_column(column, justify="right" if column in ("rate", "spread") else "left")
    for metric, result in report.metrics.items():
        for name, arm in result.arms.items():
            by_seed = " ".join(f"{s}:{v:.3f}" for s, v in arm.by_seed.items()) or "not measured"
            table.add_row(metric.replace("_", "-"), escape(name), by_seed,
                          f"{arm.mean:.3f}" if arm.by_seed else "—", f"{arm.spread:.3f}" if arm.by_seed else "—")
    console.print(table)
    print_verdict(report.verdict, console, title="NO DAMAGE")


def print_checkpoints(ties: CheckpointTies, console: Console) -> None:
    best = ties.best
    console.print(f"{len(ties.points)} eval points; median neighbour jitter {ties.jitter:.4f}; minimum "
                  f"eval_loss {best.eval_loss:.4f} at step {best.step}")
    table = Table(title="checkpoints by eval_loss")
    for column in ("step", "epoch", "eval_loss", "above min", "jitters", "call"):
        table.add_column(column, justify="left" if column == "call" else "right")
    for row in (*ties.ties, *ties.others):
        tie = row in ties.ties
        epoch = f"{row.point.epoch:.3f}" if row.point.epoch is not None else "—"
        jitters = f"{row.jitters:.1f}x" if row.jitters is not None else "—"
        call = "[yellow]tie: inside one jitter, the curve cannot separate it[/]" if tie else "outside one jitter"
        table.add_row(str(row.point.step), epoch, f"{row.point.eval_loss:.4f}", f"{row.above_min:+.4f}",
                      jitters, call)
    console.print(table)
    steps = ", ".join(str(r.point.step) for r in ties.ties)
    console.print(f"{len(ties.ties)} inside one jitter of the minimum: {steps}")


def print_fixture(build: FixtureBuild, console: Console, out: str) -> None:
    low, high = build.band
    console.print(f"{build.split}: {build.split_total} pairs, {build.in_band} inside the {low}-{high} word band")
    per_work = ", ".join(f"{escape(w)} {build.sampled_by_work.get(w, 0)}/{k}"
                         for w, k in build.available_by_work.items())
    console.print(f"sampled {len(build.items)} round-robin across {len(build.available_by_work)} works "
                  f"(seed {build.seed}): {per_work}")
    console.print(f"wrote {escape(out)}")

