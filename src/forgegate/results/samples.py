"""How sure a GLOSS result is (issue 47): the margin to the next word, and the K samples' replicates and intervals.

Both blocks are added optional fields of the eval body (``results.eval.EvalBody``): ``margin`` is there at any K
(None only for a live test and with answers missing everywhere), ``samples`` only when K > 1.
"""

from __future__ import annotations

from forgegate.core.verdict import Gate
from forgegate.results.base import Strict


class CategoryMarginResult(Strict):
    """How many items a category is from the other side of its floor."""

    score: float
    """The category's score (sample 1's answers when K > 1)."""
    n: int
    """Its items."""
    floor: float
    """The category floor it is gated against."""
    passes: bool
    """Whether the score is at or above the floor."""
    items: int
    """Items that would have to change (fail -> pass when it fails, pass -> fail when it passes) to flip it."""
    flipped_score: float
    """The score after that change."""
    text: str
    """The margin in words: "LX-G 0.40 of 5: one more passing item makes it 0.60"."""


class SigmaMarginResult(Strict):
    """How far sigma_total is from its minimum, and the fewest items whose change crosses it."""

    sigma_total: float
    """The weighted sum of the category scores."""
    minimum: float
    """The gate config's ``sigma_total_min``."""
    passes: bool
    """Whether sigma_total is at or above the minimum."""
    delta: float
    """sigma_total minus the minimum (negative below it)."""
    items: int | None
    """Fewest items (the heaviest first) whose change crosses the minimum; None when none can."""
    flipped_sigma: float | None
    """sigma_total after that change; None when no change of items crosses the minimum."""
    text: str
    """The margin in words."""


class MarginResult(Strict):
    """The margin to the next word, per category and for sigma_total (sample 1's answers when K > 1)."""

    categories: dict[str, CategoryMarginResult]
    """Categories with every answer in; a category with answers missing has no margin yet."""
    sigma_total: SigmaMarginResult | None
    """sigma_total's margin; None while answers are missing."""
    closest: str | None
    """The category with the fewest items to flip (ties: the score nearest its floor); the compact output's line."""


class Interval(Strict):
    """A mean pass rate with its 95% interval."""

    mean: float
    """The mean pass rate over items and samples (sigma_total: the weighted category means)."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""


class SampleItem(Strict):
    """One item over its K samples."""

    passes: int
    """Samples whose answer passed."""
    answered: int
    """Samples with a score (an error or a pending review has none: never a pass)."""
    samples: int
    """K."""


class ReplicateResult(Strict):
    """Replicate j: the battery answered by sample j of every item, gated by the spec's gate."""

    sample: int
    """1 .. K; sample 1 is the run's own seed (the spec's procedure)."""
    seed: int | None
    """The seed every item's sample j was generated with (recorded with each stored answer)."""
    gate: Gate
    """The spec's gate on this replicate alone."""
    sigma_total: float | None
    """This replicate's sigma_total; None with answers missing."""
    failed_categories: list[str]
    """This replicate's categories under their floor."""


class SamplesResult(Strict):
    """K samples per item: each replicate's word, each item's passes out of K, each category's mean pass rate and
    sigma_total with intervals (``interval`` says how they are computed)."""

    k: int
    """Samples per item (``--samples``)."""
    seeds: list[int | None]
    """Sample j's seed, j = 1 .. K (``forgegate.core.samples``): the first is the run's ``seed``."""
    interval: str
    """The interval's method and why it was chosen."""
    replicates: list[ReplicateResult]
    """Each replicate's word under the spec's gate, in sample order."""
    passed_replicates: int
    """Replicates whose word is PASS (the result's word is PASS only when this is K)."""
    flips: list[str]
    """Categories (or sigma_total) whose word differs between replicates."""
    items: dict[str, SampleItem]
    """Per item id: passes out of K."""
    categories: dict[str, Interval]
    """Mean pass rate over items and samples, with a Wilson interval over the category's items."""
    sigma_total: Interval | None
    """The weighted mean of the category means, with the categories' intervals combined; None with answers missing."""
