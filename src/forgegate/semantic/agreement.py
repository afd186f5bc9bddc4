"""Cohen's kappa between two raters' labels of the same items."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def cohens_kappa(first: Sequence[int], second: Sequence[int]) -> float | None:
    """(p_o - p_e) / (1 - p_e); None when chance agreement is 1 (both raters used one identical label)."""
    if len(first) != len(second) or not first:
        raise ValueError("kappa needs two equally long, non-empty label lists")
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    ca, cb = Counter(first), Counter(second)
    expected = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if expected == 1.0:
        return None
    return (observed - expected) / (1.0 - expected)
