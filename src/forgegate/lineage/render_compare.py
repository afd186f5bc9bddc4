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


NARROW = 110
"""Below this many columns the table leaves out the McNemar columns (the JSON keeps them), rather than cut a name."""
_COLUMNS = ("category", "pairs", "old", "new", "diff", "95% CI (items)", "lost/gained", "McNemar p", "Holm p",
            "call")
_NARROW_DROPS = frozenset({"lost/gained", "McNemar p"})


def comparison_table(comparison: RunComparison, width: int | None = None) -> Table:
    """The per-category table; at fewer than :data:`NARROW` columns (``width``) without the McNemar columns, and
    every cell folds onto more lines rather than being cut (a category name or a call is never "cate…")."""
    title = f"paired comparison: {comparison.old_label} -> {comparison.new_label}"
    narrow = width is not None and width < NARROW
    table = (Table(title=escape(title), box=None, pad_edge=False, header_style="bold underline") if narrow
             else Table(title=escape(title)))
    keep = [i for i, header in enumerate(_COLUMNS) if not narrow or header not in _NARROW_DROPS]
    whole = {"category": max(len(c.category) for c in (*comparison.categories, comparison.overall)),
             "call": max(len(c.call) for c in (*comparison.categories, comparison.overall))}
    for i in keep:
        header = _COLUMNS[i]
        if header == "95% CI (items)":  # the one cell that wraps, at its space: "[-0.550," over "-0.250]"
            table.add_column("95% CI" if narrow else header, overflow="fold")
        else:  # a name or a number is never folded or cut
            table.add_column(header, no_wrap=True, min_width=whole.get(header))
    for c in comparison.categories:
        table.add_row(*(_row(c)[i] for i in keep))
    table.add_section()
    table.add_row(*(_row(comparison.overall)[i] for i in keep))
    return table


def print_comparison(console: Console, comparison: RunComparison) -> None:
    """The table, then what got worse, what is missing, and the gate word with every reason."""
    console.print(comparison_table(comparison, console.width))
    console.print(f"bootstrap: {comparison.n_resamples} resamples of items, seed {comparison.seed}"
                  + ("; McNemar counts (item, seed) pairs as independent (several seeds per item): "
                     "the CI, which resamples items, decides" if comparison.mcnemar_clustered else ""))
    console.print(f"paired test: {escape(comparison.paired_test)}")
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
