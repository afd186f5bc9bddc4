"""AGG_COVERAGE and MINORITY_RECALL per (branch pool, aggregate), as a pools x aggregates table."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from forgegate.semantic import formulas as f
from forgegate.semantic.taskstats import TaskData, Variant

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class AggregateInput:
    """The clusters aggregate ``aggregate`` represents when built from pool ``pool`` (a condition's samples)."""

    pool: str
    aggregate: str
    clusters: frozenset[str]


@dataclass(frozen=True)
class PoolTable:
    """Per-pool values; columns are aggregates, then each aggregate pair's paired difference."""

    pools: tuple[str, ...]
    aggregates: tuple[str, ...]
    coverage: FloatArray
    minority: FloatArray

    def pairs(self) -> list[tuple[str, int, int]]:
        return [(f"{self.aggregates[j]}-{self.aggregates[i]}", i, j)
                for i, j in combinations(range(len(self.aggregates)), 2)]

    def ratios(self, names: list[tuple[str, str]]) -> list[tuple[tuple[str, str], int, int, str]]:
        """Per metric and aggregate pair, in the orientation of its difference (``b-a``): the ratio's name
        ``(metric:ratio, b/a)``, the numerator and denominator columns of ``names``, and the difference's label
        (T_GPT v0.8.1: "Always report absolute difference and ratio where defined")."""
        index = {name: k for k, name in enumerate(names)}
        out: list[tuple[tuple[str, str], int, int, str]] = []
        for metric in ("AGG_COVERAGE", "MINORITY_RECALL"):
            for label, i, j in self.pairs():
                top, bottom = self.aggregates[j], self.aggregates[i]
                out.append(((f"{metric}:ratio", f"{top}/{bottom}"), index[(metric, top)], index[(metric, bottom)],
                            label))
        return out

    def columns(self) -> tuple[list[tuple[str, str]], FloatArray]:
        """(metric, label) per column and the pools x columns matrix the paired pool bootstrap resamples."""
        names: list[tuple[str, str]] = []
        cols: list[FloatArray] = []
        for metric, table in (("AGG_COVERAGE", self.coverage), ("MINORITY_RECALL", self.minority)):
            for k, agg in enumerate(self.aggregates):
                names.append((metric, agg))
                cols.append(table[:, k])
            for label, i, j in self.pairs():
                names.append((f"{metric}:diff", label))
                cols.append(table[:, j] - table[:, i])
        return names, np.column_stack(cols) if cols else np.zeros((len(self.pools), 0))


def pool_table(data: TaskData, rows: list[AggregateInput], relevance: dict[str, int], variant: Variant,
               minimum_count: int = f.MINIMUM_COUNT) -> PoolTable:
    """Evaluate every (pool, aggregate) cell on the pool's observed generations (the grid must be complete)."""
    pools = tuple(sorted({r.pool for r in rows}))
    aggregates = tuple(sorted({r.aggregate for r in rows}))
    cells = {(r.pool, r.aggregate): r.clusters for r in rows}
    rel = data.relevance_mask(relevance, variant.filtered)
    coverage = np.full((len(pools), len(aggregates)), np.nan)
    minority = np.full((len(pools), len(aggregates)), np.nan)
    for i, pool in enumerate(pools):
        labels = data.labels[pool]
        counts = data.counts(labels)[0]
        p = f.probabilities(counts)
        s_plus = f.relevant_support(counts, f.support_floor(len(labels), variant.tau, minimum_count), rel)
        for k, agg in enumerate(aggregates):
            represented = np.array([c in cells[(pool, agg)] for c in data.clusters], dtype=bool)
            coverage[i, k] = float(f.agg_coverage(p, s_plus, represented))
            minority[i, k] = f.minority_recall(counts, rel, represented)
    return PoolTable(pools, aggregates, coverage, minority)
