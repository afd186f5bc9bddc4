"""Pass rates over K samples per item: each item's passes out of K, each category's mean pass rate with
a Wilson interval over its items, and sigma_total's interval from the categories'.

Why Wilson over items, not over items x samples, and not a bootstrap: the K samples of one item are not K
independent draws of the category (a greedy or near-greedy model answers an item the same way every time), so
counting n x K trials would narrow the interval by up to sqrt(K) for nothing; each item's mean over its samples
is one observation of the category, and the Wilson score interval is taken on the category's mean with n = its
items (conservative when the samples do vary). A percentile bootstrap over 5 or 10 items takes only a handful of
values and collapses to a point when every item agrees (all pass: [1, 1]), which is exactly where a floor is
read; Wilson stays inside [0, 1] and keeps a width there, and needs no random draws.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""
INTERVAL_METHOD = ("Wilson score interval (95%) on the category's mean pass rate with n = its items (each item's "
                   "mean over its K samples is one observation: samples of one item are not independent draws); "
                   "sigma_total: the weighted category means, their half-widths combined in quadrature")


@dataclass(frozen=True)
class Rate:
    mean: float
    low: float
    high: float


def wilson(mean: float, n: int, z: float = Z95) -> Rate:
    """The Wilson score interval of a proportion ``mean`` observed over ``n`` units."""
    if n <= 0:
        raise ValueError("a Wilson interval needs at least one unit")
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Rate(mean, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class ItemPasses:
    passes: int
    answered: int
    samples: int


def item_passes(scores: Sequence[float | None]) -> ItemPasses:
    """One item's samples: how many passed (score 1), how many have a score at all."""
    return ItemPasses(sum(1 for s in scores if s is not None and s >= 1.0), sum(s is not None for s in scores),
                      len(scores))


def category_rate(items: Sequence[Sequence[float | None]]) -> Rate | None:
    """A category's mean pass rate over its items and their samples; None while a sample has no score."""
    if not items or any(s is None for scores in items for s in scores):
        return None
    per_item = [sum(float(s or 0.0) for s in scores) / len(scores) for scores in items]
    return wilson(sum(per_item) / len(per_item), len(per_item))


def sigma_rate(rates: Mapping[str, Rate], weights: Mapping[str, float]) -> Rate | None:
    """sigma_total as the weighted category means; its interval the categories' half-widths in quadrature
    (about the mean, clipped to [0, sum of weights])."""
    if not rates or any(name not in weights for name in rates):
        return None
    mean = sum(weights[name] * rate.mean for name, rate in rates.items())
    half = math.sqrt(sum((weights[name] * (rate.high - rate.low) / 2) ** 2 for name, rate in rates.items()))
    return Rate(mean, max(0.0, mean - half), min(sum(weights[name] for name in rates), mean + half))
