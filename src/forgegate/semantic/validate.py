"""Cross-file checks on semantic metric inputs: relevance coverage, aggregate grids, the N >= 64 rule."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from forgegate.core.limits import CONFIRMATORY_MIN_SAMPLES
from forgegate.errors import InputError, UsageError
from forgegate.semantic.input_rows import UNMAPPED, AggregateRow, SampleRow
from forgegate.semantic.pools import AggregateInput


def group_samples(samples: list[SampleRow]) -> dict[str, dict[str, list[str]]]:
    """task -> condition -> cluster labels, in sample order."""
    grouped: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in samples:
        grouped[row.task][row.condition].append(row.cluster)
    return {t: dict(c) for t, c in grouped.items()}


def check_relevance(samples: list[SampleRow], relevance: dict[str, int], relevance_path: Path | str) -> None:
    """Every mapped cluster needs an adjudicated R(c): a missing one is an error, never a default."""
    missing = sorted({r.cluster for r in samples if r.cluster != UNMAPPED} - set(relevance))
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise InputError(relevance_path, f"no relevance row for cluster(s) {shown}", field="cluster",
                         hint="annotate every frozen cluster the samples use (R(c) is 0 or 1)")


def check_roles(reference: str, contracted: str, recovery: str) -> None:
    if len({reference, contracted, recovery}) != 3:
        raise UsageError("--reference, --contracted and --recovery must name three different conditions")


def check_sample_sizes(grouped: dict[str, dict[str, list[str]]], exploratory: bool) -> list[str]:
    """Conditions under N=64: refused for confirmatory use; with ``exploratory`` they are listed instead."""
    small = [f"task {t!r} condition {c!r}: N={len(labels)}"
             for t, conds in sorted(grouped.items()) for c, labels in sorted(conds.items())
             if len(labels) < CONFIRMATORY_MIN_SAMPLES]
    if small and not exploratory:
        shown = "; ".join(small[:5]) + (f"; and {len(small) - 5} more" if len(small) > 5 else "")
        raise UsageError(
            f"refused for confirmatory use: {shown} (fewer than {CONFIRMATORY_MIN_SAMPLES} generations; the support "
            "floor k_X = max(2, ceil(tau*N)) is only meaningful at N >= 64). Generate more samples, or pass "
            "--exploratory to compute anyway with every output labelled exploratory.")
    return small


def check_aggregates(rows: list[tuple[int, AggregateRow]], grouped: dict[str, dict[str, list[str]]],
                     relevance: dict[str, int], path: Path | str) -> dict[str, list[AggregateInput]]:
    """Pools must be conditions of their task, clusters must be frozen IDs, and each task's grid complete."""
    by_task: dict[str, list[AggregateInput]] = defaultdict(list)
    lines: dict[str, int] = {}
    for line, row in rows:
        if row.task not in grouped:
            raise InputError(path, f"task {row.task!r} has no samples", line=line, field="task")
        if row.pool not in grouped[row.task]:
            raise InputError(path, f"pool {row.pool!r} is not a condition of task {row.task!r}", line=line,
                             field="pool", hint="a branch pool is the samples of one condition in the samples file")
        unknown = [c for c in row.clusters if c != UNMAPPED and c not in relevance]
        if unknown:
            raise InputError(path, f"cluster {unknown[0]!r} is not a frozen cluster with a relevance row",
                             line=line, field="clusters")
        by_task[row.task].append(AggregateInput(row.pool, row.aggregate, frozenset(row.clusters) - {UNMAPPED}))
        lines.setdefault(row.task, line)
    for task, items in by_task.items():
        pools = {i.pool for i in items}
        aggs = {i.aggregate for i in items}
        have = {(i.pool, i.aggregate) for i in items}
        gaps = sorted((p, a) for p in pools for a in aggs if (p, a) not in have)
        if gaps:
            raise InputError(path, f"task {task!r}: aggregate {gaps[0][1]!r} has no row for pool {gaps[0][0]!r}",
                             line=lines[task], field="aggregate",
                             hint="paired pool resampling needs every aggregate evaluated on every pool")
    return dict(by_task)
