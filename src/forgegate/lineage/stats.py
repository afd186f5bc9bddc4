"""Paired statistics for two runs: cluster bootstrap CI, McNemar's exact test, Holm correction."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import bootstrap
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairedDifference:
    """Mean difference (new - old) over paired samples, with a bootstrap CI over clusters."""

    difference: float
    ci_low: float | None
    ci_high: float | None
    method: str
    """"BCa", "percentile" (BCa undefined), "degenerate" (every cluster the same) or "none" (< 2 clusters)."""
    n_clusters: int
    n_pairs: int


def _weighted_mean(diffs: FloatArray, weights: FloatArray, axis: int = -1) -> FloatArray:
    return np.asarray(np.sum(diffs * weights, axis=axis) / np.sum(weights, axis=axis), dtype=np.float64)


def paired_bootstrap_difference(
    cluster_diffs: Sequence[float],
    cluster_sizes: Sequence[int],
    *,
    seed: int,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
) -> PairedDifference:
    """CI of the mean paired difference, resampling clusters (items), never single samples.

    ``cluster_diffs[i]`` is the mean of (new - old) over the paired seeds of item ``i``
    and ``cluster_sizes[i]`` how many seeds paired; the statistic is the mean over all
    paired samples (the cluster means weighted by their sizes).
    """
    diffs = np.asarray(cluster_diffs, dtype=np.float64)
    sizes = np.asarray(cluster_sizes, dtype=np.float64)
    if diffs.shape != sizes.shape or diffs.ndim != 1:
        raise ValueError("one difference and one size per cluster")
    n_pairs = int(sizes.sum())
    if diffs.size == 0:
        return PairedDifference(float("nan"), None, None, "none", 0, 0)
    point = float(_weighted_mean(diffs, sizes))
    if diffs.size < 2:
        return PairedDifference(point, None, None, "none", int(diffs.size), n_pairs)
    if float(np.ptp(diffs)) == 0.0:
        # Every resample gives the same value: the interval is that value, exactly.
        return PairedDifference(point, point, point, "degenerate", int(diffs.size), n_pairs)
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # BCa undefined -> NaN; we fall back and say so
            res = bootstrap(
                (diffs, sizes),
                _weighted_mean,
                paired=True,
                vectorized=True,
                n_resamples=n_resamples,
                confidence_level=confidence_level,
                method=method,
                rng=np.random.default_rng(seed),
            )
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            return PairedDifference(point, low, high, method, int(diffs.size), n_pairs)
    return PairedDifference(point, None, None, "none", int(diffs.size), n_pairs)


@dataclass(frozen=True)
class McNemarResult:
    """Pass/fail pairs: both pass, old-only pass (lost), new-only pass (gained), both fail."""

    both_pass: int
    lost: int
    gained: int
    both_fail: int
    pvalue: float

    @property
    def n(self) -> int:
        return self.both_pass + self.lost + self.gained + self.both_fail


def mcnemar_exact(pairs: Sequence[tuple[bool, bool]]) -> McNemarResult | None:
    """McNemar's exact (binomial) test on the discordant (old, new) pass/fail pairs."""
    if not pairs:
        return None
    both_pass = sum(1 for old, new in pairs if old and new)
    lost = sum(1 for old, new in pairs if old and not new)
    gained = sum(1 for old, new in pairs if not old and new)
    both_fail = sum(1 for old, new in pairs if not old and not new)
    table = [[both_pass, lost], [gained, both_fail]]
    pvalue = float(mcnemar(table, exact=True).pvalue)
    return McNemarResult(both_pass, lost, gained, both_fail, min(pvalue, 1.0))


def holm_adjust(pvalues: Sequence[float], alpha: float = 0.05) -> list[float]:
    """Holm step-down adjusted p-values (statsmodels), same order as given."""
    if not pvalues:
        return []
    _, adjusted, _, _ = multipletests(list(pvalues), alpha=alpha, method="holm")
    return [float(p) for p in adjusted]
