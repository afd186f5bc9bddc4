"""Terminal rendering of a paired comparison: the per-category table, findings, gate and reasons."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.lineage.compare import CategoryComparison, RunComparison

_CALL_STYLE = {"regressed": "bold red", "improved": "green", "unchanged": "", "insufficient": "yellow"}


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def _row(c: CategoryComparison) -> list[str]:
    d = c.difference
    ci = "-" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    mc = c.mcnemar
    style = _CALL_STYLE[c.call]
    call = f"[{style}]{c.call}[/]" if style else c.call
    return [
        escape(c.category),
        f"{d.n_clusters}/{d.n_pairs}" + (f" ({c.n_errored} err)" if c.n_errored else ""),
        _num(c.score_old, ".3f"),
        _num(c.score_new, ".3f"),
        "-" if d.n_pairs == 0 else f"{d.difference:+.3f}",
        ci,
        "-" if mc is None else f"{mc.lost}/{mc.gained}",
        "-" if mc is None else f"{mc.pvalue:.3g}",
        _num(c.p_holm, ".3g"),
        call,
    ]


def _some(keys: tuple[str, ...], shown: int = 10) -> str:
    more = f" ... and {len(keys) - shown} more (see --json)" if len(keys) > shown else ""
    return escape(", ".join(keys[:shown]) + more)


def comparison_table(comparison: RunComparison) -> Table:
    title = f"paired comparison: {comparison.old_label} -> {comparison.new_label}"
    table = Table(title=escape(title))
    for header in ("category", "items/pairs", "old", "new", "diff", "95% CI (items)", "lost/gained",
                   "McNemar p", "Holm p", "call"):
        table.add_column(header)
    for c in comparison.categories:
        table.add_row(*_row(c))
    table.add_section()
    table.add_row(*_row(comparison.overall))
    return table


def print_comparison(console: Console, comparison: RunComparison) -> None:
    """The table, then what got worse, what is missing, and the gate word with every reason."""
    console.print(comparison_table(comparison))
    console.print(f"bootstrap: {comparison.n_resamples} resamples of items, seed {comparison.seed}"
                  + ("; McNemar counts (item, seed) pairs as independent (several seeds per item): "
                     "the CI, which resamples items, decides" if comparison.mcnemar_clustered else ""))
    if comparison.new_failure_modes:
        console.print("[bold red]new failure modes:[/] " + escape(", ".join(comparison.new_failure_modes)))
    if comparison.resolved_failure_modes:
        console.print("resolved failure modes: " + escape(", ".join(comparison.resolved_failure_modes)))
    for side, keys in (("old", comparison.unpaired_old), ("new", comparison.unpaired_new)):
        if keys:
            label = comparison.old_label if side == "old" else comparison.new_label
            console.print(f"[yellow]unpaired, only in {escape(label)}:[/] " + _some(keys))
    if comparison.errored:
        console.print("[yellow]errored pairs (not compared):[/] " + _some(comparison.errored))
    console.print(f"GATE: [{comparison.gate.colour}]{comparison.gate.value}[/]")
    for reason in comparison.verdict.reasons:
        console.print(f"  - {escape(reason.rule)} {escape('[' + reason.outcome.value + ']')}: "
                      f"{escape(reason.detail)}")
