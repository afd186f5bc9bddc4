"""Rich terminal rendering of the instrument results (voice, memorisation, damage: their typed results), checkpoints
and fixture builds."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.rules import format_ratio, gate_label
from forgegate.core.verdict import Gate
from forgegate.results.base import Gated
from forgegate.results.checkpoints import CheckpointTiesResult
from forgegate.results.damage import DamageAxis
from forgegate.results.fixture_build import FixtureBuildResult
from forgegate.results.memorization import MemorizationAxis
from forgegate.results.voice import VoiceAxis


def gate_markup(gate: Gate) -> str:
    """The gate word (HOLD spelled out) in its colour, as rich markup."""
    return f"[{gate.colour}]{escape(gate_label(gate))}[/]"


def print_verdict(result: Gated, console: Console, *, title: str = "GATE") -> None:
    """The gate word and every reason that decided it."""
    for reason in result.reasons:
        console.print(f"  {gate_markup(reason.outcome)}  {escape(reason.rule)}: {escape(reason.detail)}")
    console.print(f"{title}: {gate_markup(result.gate)}")


def _seed_order(seed: str) -> tuple[int, int | str]:
    """Seeds in numeric order (the JSON keys them as strings: "10" after "2")."""
    try:
        return 0, int(seed)
    except ValueError:
        return 1, seed


def _f3(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def print_voice(result: VoiceAxis, console: Console) -> None:
    author = escape(result.author)
    ref = result.reference
    console.print(f"VOICE — author: [bold]{author}[/] — reference: held-out {author}, {ref.words} words in "
                  f"{ref.segments} segments of {ref.segment_words}; {ref.features} character-bigram features")
    seeds = sorted({s for arm in result.arms.values() for s in arm.delta_by_seed}, key=_seed_order)
    table = Table(title=f"Burrows's Delta to held-out {author} (lower is closer)")
    table.add_column("arm")
    for seed in seeds:
        table.add_column(f"seed {seed}", justify="right")
    table.add_column("delta", justify="right")
    table.add_column("spread", justify="right")
    for name, arm in result.arms.items():
        role = " (control)" if name == result.control else " (candidate)" if name == result.candidate else ""
        cells = [f"{arm.delta_by_seed[s]:.3f}" if s in arm.delta_by_seed else "—" for s in seeds]
        measured = bool(arm.delta_by_seed)
        table.add_row(escape(name + role), *cells, _f3(arm.delta) if measured else "—",
                      _f3(arm.spread) if measured else "—")
    console.print(table)
    if result.gap is not None and result.floor_pairwise is not None and result.floor_all_arms is not None:
        flag = "  [bold yellow]⚠ the two floor rules DISAGREE[/]" if result.floors_disagree else ""
        console.print(f"gap {result.gap:+.3f}; floor pairwise {result.floor_pairwise:.3f} "
                      f"(ratio {format_ratio(result.ratio)}), all-arms {result.floor_all_arms:.3f} "
                      f"(from {escape(str(result.floor_all_arms_from))}); verdict uses the {result.floor_rule} "
                      f"floor{flag}")
    print_verdict(result, console, title=f"VOICE ({author})")


def print_memorization(result: MemorizationAxis, console: Console) -> None:
    console.print(f"NOT COPIED — longest verbatim run of ≥{result.n} words against a corpus of "
                  f"{result.corpus_words:,} words")
    table = Table()
    for column in ("arm", "generations", "hits", "hit rate", "max (words)"):
        table.add_column(column, justify="left" if column == "arm" else "right")
    for name, arm in result.arms.items():
        role = " (control)" if name == result.control else " (candidate)" if name == result.candidate else ""
        table.add_row(escape(name + role), str(arm.generations), str(arm.hits), f"{arm.hit_rate:.3f}",
                      str(arm.max))
    pos, neg = result.positive_control, result.negative_control
    table.add_row("positive control", str(pos.passages), "", f"{pos.hit_rate:.3f}",
                  f"{pos.max} of {pos.passage_words}")
    table.add_row("negative control", str(neg.passages), "", f"{neg.hit_rate:.3f}", str(neg.max))
    console.print(table)
    print_verdict(result, console, title="NOT COPIED")


def print_damage(result: DamageAxis, console: Console) -> None:
    low, high = result.band
    console.print(f"NO DAMAGE — band {low}-{high} words; ran-on = hit the token cap")
    table = Table()
    for column in ("metric", "arm", "rate by seed", "rate", "spread"):
        table.add_column(column, justify="right" if column in ("rate", "spread") else "left")
    for metric, res in result.metrics.items():
        for name, arm in res.arms.items():
            by_seed = " ".join(f"{s}:{v:.3f}" for s, v in arm.rate_by_seed.items()) or "not measured"
            measured = bool(arm.rate_by_seed)
            table.add_row(metric.replace("_", "-"), escape(name), by_seed, _f3(arm.rate) if measured else "—",
                          _f3(arm.spread) if measured else "—")
    console.print(table)
    print_verdict(result, console, title="NO DAMAGE")


def print_checkpoints(ties: CheckpointTiesResult, console: Console) -> None:
    best = ties.minimum
    console.print(f"{ties.eval_points} eval points; median neighbour jitter {ties.median_neighbour_jitter:.4f}; "
                  f"minimum eval_loss {best.eval_loss:.4f} at step {best.step}")
    table = Table(title="checkpoints by eval_loss")
    for column in ("step", "epoch", "eval_loss", "above min", "jitters", "call"):
        table.add_column(column, justify="left" if column == "call" else "right")
    for tie, row in (*((True, r) for r in ties.ties), *((False, r) for r in ties.others)):
        epoch = f"{row.epoch:.3f}" if row.epoch is not None else "—"
        jitters = f"{row.jitters:.1f}x" if row.jitters is not None else "—"
        call = "[yellow]tie: inside one jitter, the curve cannot separate it[/]" if tie else "outside one jitter"
        table.add_row(str(row.step), epoch, f"{row.eval_loss:.4f}", f"{row.above_min:+.4f}", jitters, call)
    console.print(table)
    steps = ", ".join(str(r.step) for r in ties.ties)
    console.print(f"{len(ties.ties)} inside one jitter of the minimum: {steps}")


def print_fixture(build: FixtureBuildResult, console: Console) -> None:
    low, high = build.band
    console.print(f"{build.split}: {build.split_total} pairs, {build.in_band} inside the {low}-{high} word band")
    per_work = ", ".join(f"{escape(w)} {build.sampled_by_work.get(w, 0)}/{k}"
                         for w, k in build.available_by_work.items())
    console.print(f"sampled {len(build.items)} round-robin across {len(build.available_by_work)} works "
                  f"(seed {build.seed}): {per_work}")
    console.print(f"wrote {escape(build.out)}")

