"""The semantic library's metrics tables (``semantic metrics``; a plan run's ``semantic.metrics``), typed.

Built by ``semantic.analysis.compute_metrics``: per task and across tasks, each condition's support statistics and
each pair metric, pool, and effect with its interval. Keys a cell has only in some cases (``na_resamples`` where a
metric can be NA, ``n_tasks`` across tasks) are written only when given (``Sparse``): the JSON is the library's.
"""

from __future__ import annotations

from forgegate.results.base import Estimate, Sparse, Strict
from forgegate.results.primary import MetricEntry


class PoolEntry(MetricEntry):
    """An aggregate's pool metric within a task, with each pool's own value."""

    pools: dict[str, float | None]
    """Pool -> its value (null: NA)."""


class TaskCondition(Strict):
    """One condition within a task: its samples, support and the condition metrics' point estimates."""

    n: int
    """Samples of the condition."""
    k: int
    """The support floor: the count a cluster needs to be in the support."""
    unmapped_rate: float | None
    """Share of samples mapped to no frozen cluster."""
    support: list[str]
    """The clusters in the support."""
    D_sem: float | None  # noqa: N815  (T_GPT's metric names are the table's keys)
    """Semantic dispersion."""
    H_sem: float | None  # noqa: N815
    """Semantic entropy."""
    P: float | None
    """The condition's P (T_GPT v0.8.1)."""
    counts: dict[str, int]
    """Cluster -> samples (``UNMAPPED`` included)."""
    ci: dict[str, list[float] | None]
    """Condition metric -> its interval."""


class TaskBlock(Strict):
    """One task: each condition, each pair metric, and the aggregates' pool metrics."""

    conditions: dict[str, TaskCondition]
    """Condition -> its statistics."""
    ES_LOSS: MetricEntry
    """Expected support loss, contracted vs reference."""
    REC_GAIN: MetricEntry
    """Recovery gain."""
    IRREV_OBS: MetricEntry
    """Observed irreversibility."""
    AGG_COVERAGE: dict[str, PoolEntry]
    """Aggregate -> its coverage."""
    MINORITY_RECALL: dict[str, PoolEntry]
    """Aggregate -> its minority recall."""

    def pair(self, metric: str) -> MetricEntry:
        """The pair metric named ``metric`` (ES_LOSS, REC_GAIN or IRREV_OBS), for a renderer that loops over them."""
        return {"ES_LOSS": self.ES_LOSS, "REC_GAIN": self.REC_GAIN, "IRREV_OBS": self.IRREV_OBS}[metric]


class AcrossTasks(Strict):
    """Across tasks (tasks resampled): each condition metric, each pair metric and the aggregates' pool metrics."""

    n_tasks: int
    """Tasks in the table."""
    conditions: dict[str, dict[str, MetricEntry]]
    """Condition -> metric -> its across-task value."""
    ES_LOSS: MetricEntry
    """Expected support loss."""
    REC_GAIN: MetricEntry
    """Recovery gain."""
    IRREV_OBS: MetricEntry
    """Observed irreversibility."""
    AGG_COVERAGE: dict[str, MetricEntry]
    """Aggregate -> its coverage."""
    MINORITY_RECALL: dict[str, MetricEntry]
    """Aggregate -> its minority recall."""

    def pair(self, metric: str) -> MetricEntry:
        """The pair metric named ``metric`` (ES_LOSS, REC_GAIN or IRREV_OBS), for a renderer that loops over them."""
        return {"ES_LOSS": self.ES_LOSS, "REC_GAIN": self.REC_GAIN, "IRREV_OBS": self.IRREV_OBS}[metric]

    def endpoints(self) -> list[str]:
        """The endpoints this table reports across tasks, sorted: its metric fields (the pair metrics and the
        aggregates' pool metrics) and every condition metric (``semantic compare --endpoint`` takes one)."""
        names = {name for name in type(self).model_fields if name not in _NOT_ENDPOINTS}
        for metrics in self.conditions.values():
            names |= set(metrics)
        return sorted(names)

    def entries(self, endpoint: str) -> list[tuple[str, MetricEntry]]:
        """An endpoint's across-task cells, each with its label: one for a pair metric (``ES_LOSS``), one per
        aggregate for a pool metric (``AGG_COVERAGE mean``), one per condition for a condition metric
        (``D_sem A``); empty when the table has none."""
        if endpoint in type(self).model_fields and endpoint not in _NOT_ENDPOINTS:
            cell: MetricEntry | dict[str, MetricEntry] = getattr(self, endpoint)
            return [(endpoint, cell)] if isinstance(cell, MetricEntry) else \
                [(f"{endpoint} {name}", entry) for name, entry in cell.items()]
        return [(f"{endpoint} {condition}", metrics[endpoint]) for condition, metrics in self.conditions.items()
                if endpoint in metrics]


_NOT_ENDPOINTS = frozenset({"n_tasks", "conditions"})
"""``AcrossTasks`` fields that are no metric: the task count, and the conditions (whose metrics are endpoints)."""


class Tables(Strict):
    """One analysis variant: per task and across tasks."""

    tasks: dict[str, TaskBlock]
    """Task -> its block."""
    across_tasks: AcrossTasks
    """Across tasks."""


class EffectDiff(Estimate):
    """A difference with its bootstrap p-value and its Holm-adjusted p-value."""

    p_boot: float | None
    """Two-sided bootstrap p-value."""
    p_holm: float | None
    """Holm-adjusted across the analysis's family."""


class Effect(Sparse):
    """An effect: the difference, and for condition metrics the ratio."""

    diff: EffectDiff
    """Later minus earlier."""
    ratio: MetricEntry | None = None
    """Later over earlier (condition metrics only)."""
