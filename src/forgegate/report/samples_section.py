"""How sure a GLOSS result is, in words every renderer shares: the closest margin in one line, the K
samples' replicate words, each category's mean over the samples with its interval. Read from the result's
``margin`` and ``samples`` blocks; nothing is recomputed."""

from __future__ import annotations

from forgegate.results.eval import EvalBody
from forgegate.results.samples import Interval


def interval_text(interval: Interval) -> str:
    return f"{interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}]"


def margin_line(result: EvalBody) -> str | None:
    """``Margin: LX-G 0.40 of 5: one more passing item makes it 0.60`` (the closest category), or None."""
    margin = result.margin
    if margin is None or margin.closest is None:
        return None
    return f"Margin: {margin.categories[margin.closest].text}"


def margin_lines(result: EvalBody) -> list[str]:
    """Every category's margin and sigma_total's, one line each (the full report)."""
    margin = result.margin
    if margin is None:
        return []
    lines = [m.text for m in margin.categories.values()]
    if margin.sigma_total is not None:
        lines.append(margin.sigma_total.text)
    return lines


def samples_line(result: EvalBody) -> str | None:
    """``K = 5 samples per item: PASS in 3 of 5 replicates (flips: LX-STOP)``, or None with one sample."""
    samples = result.samples
    if samples is None:
        return None
    flips = f" (flips: {', '.join(samples.flips)})" if samples.flips else ""
    return f"K = {samples.k} samples per item: PASS in {samples.passed_replicates} of {samples.k} replicates{flips}"


def category_over_samples(result: EvalBody, category: str) -> str:
    """A category's mean over the K samples with its interval (empty with one sample or answers missing)."""
    samples = result.samples
    if samples is None or category not in samples.categories:
        return ""
    return f"over {samples.k} samples {interval_text(samples.categories[category])}"


def sigma_over_samples(result: EvalBody) -> str:
    samples = result.samples
    if samples is None or samples.sigma_total is None:
        return ""
    return f"over {samples.k} samples {interval_text(samples.sigma_total)}"


def item_passes(result: EvalBody, item_id: str) -> str:
    """``3/5 samples passed`` for one item, or empty with one sample."""
    samples = result.samples
    entry = samples.items.get(item_id) if samples is not None else None
    return "" if entry is None else f"{entry.passes}/{entry.samples} samples passed"
