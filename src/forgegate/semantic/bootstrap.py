"""Seeded percentile bootstrap (scipy.stats.bootstrap) over samples, tasks or pools, and Holm correction.

Where one level is not enough (E4's rates across a task family: tasks, then generations within each task), the
two-level resampler here draws both levels from one seeded Generator and takes the same percentile interval.

The spec asks for 10,000 resamples and percentile 95% intervals; scipy's defaults are BCa and
9,999, so both are passed explicitly. Metrics that can be NA (REC_GAIN, IRREV_OBS) have their
interval taken over the resamples where they are defined, and the NA share is reported beside it.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from statsmodels.stats.multitest import multipletests

FloatArray = NDArray[np.float64]

N_RESAMPLES = 10_000
CONFIDENCE_LEVEL = 0.95
METHOD = "percentile"


@dataclass(frozen=True)
class BootstrapSettings:
    """Everything that fixes a bootstrap's numbers; written into the JSON as it is (``record``), so the method and
    the library that drew the resamples are fields too (fixed, not chosen: ``init=False``)."""

    seed: int
    n_resamples: int = N_RESAMPLES
    method: str = field(default=METHOD, init=False)
    confidence_level: float = CONFIDENCE_LEVEL
    library: str = field(default_factory=lambda: f"scipy {_scipy_version()}", init=False)

    def rng_for(self, unit: str) -> np.random.Generator:
        """A Generator for one named unit (a task, the across-task table): adding a task moves no other CI."""
        digest = int.from_bytes(hashlib.sha256(unit.encode("utf-8")).digest()[:8], "big")
        return np.random.default_rng([self.seed, digest])

    def record(self) -> dict[str, Any]:
        """The settings as a table records them: the dataclass's own dump (a results model validates it)."""
        from pydantic import TypeAdapter

        dumped: dict[str, Any] = TypeAdapter(BootstrapSettings).dump_python(self, mode="json")
        return dumped


def _scipy_version() -> str:
    import scipy

    return str(scipy.__version__)


@dataclass(frozen=True)
class Interval:
    """A percentile interval over the defined resamples, with the share of NA resamples."""

    low: float | None
    high: float | None
    na_fraction: float

    def as_list(self) -> list[float] | None:
        if self.low is None or self.high is None:
            return None
        return [self.low, self.high]


@dataclass(frozen=True)
class BootResult:
    """A bootstrap distribution (metrics x resamples) and scipy's own percentile bounds per metric."""

    distribution: FloatArray
    low: FloatArray
    high: FloatArray


def intervals(result: BootResult, confidence_level: float) -> list[Interval]:
    """Per metric: scipy's percentile interval, or, where some resamples are NA, the same over the defined ones."""
    alpha = (1.0 - confidence_level) / 2.0
    out: list[Interval] = []
    for row, low, high in zip(np.atleast_2d(result.distribution), result.low, result.high, strict=True):
        missing = np.isnan(row)
        if not missing.any():
            out.append(Interval(float(low), float(high), 0.0))
            continue
        defined = row[~missing]
        na = 1.0 - defined.size / row.size
        if defined.size == 0:
            out.append(Interval(None, None, na))
            continue
        lo, hi = np.percentile(defined, [100 * alpha, 100 * (1 - alpha)])
        out.append(Interval(float(lo), float(hi), na))
    return out


def _result(raw: Any, metrics: int, n_resamples: int) -> BootResult:
    dist = np.asarray(raw.bootstrap_distribution, dtype=np.float64).reshape(metrics, n_resamples)
    ci = raw.confidence_interval
    return BootResult(dist, np.asarray(ci.low, dtype=np.float64).reshape(metrics),
                      np.asarray(ci.high, dtype=np.float64).reshape(metrics))


def resample_samples(
    labels: Sequence[NDArray[np.int64]],
    statistic: Callable[[Sequence[NDArray[np.int64]]], FloatArray],
    settings: BootstrapSettings,
    rng: np.random.Generator,
    metrics: int,
) -> BootResult | None:
    """Bootstrap distribution (metrics x resamples), resampling each condition's generations independently.

    ``statistic`` gets one ``(batch, N_X)`` label array per condition and returns ``(metrics, batch)``.
    None when a condition has fewer than two generations (no resampling is possible).
    """
    if any(len(x) < 2 for x in labels):
        return None

    def vectorised(*data: NDArray[np.int64], axis: int = -1) -> FloatArray:
        batch = [np.atleast_2d(np.moveaxis(d, axis, -1)) for d in data]
        result = statistic(batch)
        return result if data[0].ndim > 1 else result[:, 0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(tuple(labels), vectorised, n_resamples=settings.n_resamples, vectorized=True,
                                 paired=False, method=METHOD, confidence_level=settings.confidence_level,
                                 rng=rng)
    return _result(result, metrics, settings.n_resamples)


TWO_LEVEL_UNIT = ("tasks resampled with replacement (every arm's generations of a drawn task together), then "
                  "generations resampled with replacement within each drawn task and arm")
"""What ``resample_tasks_then_samples`` resamples, as a result records it (T_GPT v0.8.1: "For claims generalized
across a task family, task is the upper-level unit ... samples within one task are not independent replications")."""


def two_level_library() -> str:
    """The library line of a two-level bootstrap's record (numpy draws it; scipy's bootstrap has one level)."""
    return f"numpy {np.__version__} (forgegate.semantic.bootstrap.resample_tasks_then_samples)"


def resample_tasks_then_samples(
    tasks: Sequence[Sequence[NDArray[np.int64]]],
    settings: BootstrapSettings,
    rng: np.random.Generator,
) -> FloatArray | None:
    """A hierarchical bootstrap of pooled rates: (arms x resamples) of each arm's share of 1-labels.

    ``tasks[t][a]`` holds arm ``a``'s 0/1 labels on task ``t``. Each resample draws as many tasks as there are, with
    replacement (a drawn task brings every arm's generations of it, so the arms stay paired by task), then, for
    each drawn task and arm, as many generations as it has, with replacement; an arm's rate is its resampled 1s
    over its resampled generations (NaN where it drew none). With one task this is the within-task bootstrap
    over its generations. None without tasks or with an arm that has fewer than two generations in all.
    """
    n_tasks = len(tasks)
    n_arms = len(tasks[0]) if tasks else 0
    if n_tasks == 0 or any(sum(len(t[a]) for t in tasks) < 2 for a in range(n_arms)):
        return None
    b = settings.n_resamples
    ones = np.zeros((n_arms, b))
    drawn = np.zeros((n_arms, b))
    chosen = rng.integers(0, n_tasks, size=(b, n_tasks))  # level 1: n_tasks draws of a task, per resample
    times = np.zeros((b, n_tasks), dtype=np.int64)  # how often each resample drew each task
    np.add.at(times, (np.repeat(np.arange(b), n_tasks), chosen.ravel()), 1)
    for task in range(n_tasks):
        for copy in range(1, int(times[:, task].max(initial=0)) + 1):
            rows = np.flatnonzero(times[:, task] >= copy)  # the resamples that drew this task a copy-th time
            for arm, labels in enumerate(tasks[task]):
                size = len(labels)
                if size == 0:
                    continue
                picks = rng.integers(0, size, size=(rows.size, size))  # level 2: its generations, afresh each copy
                ones[arm, rows] += np.asarray(labels, dtype=np.float64)[picks].sum(axis=1)
                drawn[arm, rows] += size
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(drawn > 0, ones / np.where(drawn > 0, drawn, 1.0), np.nan))


def percentile_result(distribution: FloatArray, confidence_level: float) -> BootResult:
    """A distribution (metrics x resamples) as a ``BootResult`` with percentile bounds over its defined values
    (``intervals`` then reports the NA share where some resamples are undefined)."""
    alpha = (1.0 - confidence_level) / 2.0
    low, high = [], []
    for row in np.atleast_2d(distribution):
        defined = row[~np.isnan(row)]
        lo, hi = np.percentile(defined, [100 * alpha, 100 * (1 - alpha)]) if defined.size else (np.nan, np.nan)
        low.append(float(lo))
        high.append(float(hi))
    return BootResult(np.atleast_2d(distribution), np.asarray(low), np.asarray(high))


def _nanmean_rows(values: FloatArray, axis: int) -> FloatArray:
    defined = ~np.isnan(values)
    count = defined.sum(axis=axis)
    total = np.where(defined, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(count > 0, total / np.where(count > 0, count, 1), np.nan))


RatioPairs = Sequence[tuple[int, int]]
"""(numerator column, denominator column) pairs whose ratio of means a unit bootstrap also reports."""


def _means_and_ratios(data: FloatArray, axis: int, ratios: RatioPairs) -> FloatArray:
    """Per column the mean over defined units; then per pair the ratio of the two columns' means over the units
    where both are defined (NaN where that denominator is 0). Columns lead the result, whatever ``axis`` is."""
    means = _nanmean_rows(data, axis=axis)
    if not ratios:
        return means
    by_column = np.moveaxis(data, axis, -1)  # columns first, units last
    rows = []
    for num, den in ratios:
        a, b = by_column[num], by_column[den]
        both = ~np.isnan(a) & ~np.isnan(b)
        top, bottom = np.where(both, a, 0.0).sum(axis=-1), np.where(both, b, 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rows.append(np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan))
    return np.concatenate([means, np.stack(rows)], axis=0)


def resample_units(values: FloatArray, settings: BootstrapSettings, rng: np.random.Generator,
                   ratios: RatioPairs = ()) -> BootResult | None:
    """Bootstrap of the mean over units (rows: tasks, or pools paired across aggregates); (columns x resamples),
    then one row per ``ratios`` pair: the ratio of the two columns' means on the same resampled units (paired).

    NA cells are left out of each resample's mean. None with fewer than two units. The ratios add rows and draw
    nothing: the columns' intervals are the same with or without them.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[0] < 2:
        return None

    def statistic(data: FloatArray, axis: int = 0) -> FloatArray:
        return _means_and_ratios(data, axis, ratios)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap((values,), statistic, n_resamples=settings.n_resamples, vectorized=True, axis=0,
                                 method=METHOD, confidence_level=settings.confidence_level, rng=rng)
    return _result(result, values.shape[1] + len(ratios), settings.n_resamples)


def unit_means(values: FloatArray, ratios: RatioPairs = ()) -> FloatArray:
    """Point estimate matching ``resample_units``: the mean over defined units per column, then the ratios."""
    return _means_and_ratios(np.asarray(values, dtype=np.float64), 0, ratios)


def bootstrap_p_value(distribution_row: FloatArray) -> float | None:
    """Two-sided bootstrap p for 'difference = 0': twice the smaller tail share at zero, capped at 1."""
    defined = distribution_row[~np.isnan(distribution_row)]
    if defined.size == 0:
        return None
    tail = min(float(np.mean(defined <= 0)), float(np.mean(defined >= 0)))
    return min(1.0, 2.0 * tail)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (``method="holm"``; statsmodels' default would be Holm-Sidak)."""
    if not p_values:
        return []
    _, adjusted, _, _ = multipletests(list(p_values), method="holm")
    return [float(x) for x in adjusted]
