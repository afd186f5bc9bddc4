"""The margin to the next word: how many items from the other side of each floor a GLOSS result is.

For a category with ``n`` answered items summing to ``total`` under floor ``f`` (PASS iff ``total / n >= f``,
``gate.gloss``): a FAIL needs ``ceil(f n - total)`` more passing items, a PASS falls with ``floor(total - f n) + 1``
fewer. For sigma_total (the weighted sum of category scores; an item of category ``c`` moves it by ``w_c / n_c``),
the smallest change that crosses its minimum is the fewest items, largest steps first, that carry it across.
A category or a sigma with answers missing has no margin (the word itself is not settled).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from forgegate.gate.gloss import CategoryResult
from forgegate.gate.gloss_config import GateConfig

_EPS = 1e-9
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def count_words(n: int, noun: str) -> str:
    """``2, "item"`` -> "two items" (digits past ten)."""
    shown = _WORDS[n] if n < len(_WORDS) else str(n)
    return f"{shown} {noun}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class CategoryMargin:
    category: str
    score: float
    n: int
    floor: float
    passes: bool
    items: int
    """Items that would have to change (fail -> pass for a FAIL, pass -> fail for a PASS) to flip the word."""
    flipped_score: float
    """The category's score after that change."""
    text: str


@dataclass(frozen=True)
class SigmaMargin:
    sigma_total: float
    minimum: float
    passes: bool
    delta: float
    """``sigma_total - minimum``: how far above (positive) or below (negative) the minimum it is."""
    items: int | None
    """Fewest items whose change crosses the minimum (None: no change of items can)."""
    flipped_sigma: float | None
    text: str


@dataclass(frozen=True)
class Margin:
    categories: dict[str, CategoryMargin]
    sigma_total: SigmaMargin | None
    closest: str | None
    """The category with the fewest items to flip (ties: the score nearest its floor), or None."""


def category_margin(result: CategoryResult, floor: float) -> CategoryMargin | None:
    """How far ``result`` is from the other side of ``floor``; None with answers missing or no items."""
    if result.missing or not result.n or result.score is None:
        return None
    n, total = result.n, result.score * result.n
    passes = result.score >= floor
    if passes:
        items = math.floor(total - floor * n + _EPS) + 1
        flipped = max(0.0, total - items) / n
        text = (f"{result.category} {result.score:.2f} of {n}: {count_words(items, 'fewer passing item')} "
                f"makes it {flipped:.2f}")
    else:
        items = math.ceil(floor * n - total - _EPS)
        flipped = min(float(n), total + items) / n
        text = (f"{result.category} {result.score:.2f} of {n}: {count_words(items, 'more passing item')} "
                f"makes it {flipped:.2f}")
    return CategoryMargin(result.category, result.score, n, floor, passes, items, flipped, text)


def sigma_margin(config: GateConfig, categories: Mapping[str, CategoryResult],
                 sigma_total: float | None) -> SigmaMargin | None:
    """The fewest items whose change carries sigma_total across its minimum; None while answers are missing."""
    if sigma_total is None:
        return None
    minimum = config.sigma_total_min
    passes = sigma_total >= minimum
    steps: list[float] = []  # each available item's move of sigma_total, largest first
    for name, cat in categories.items():
        if not cat.n or cat.score is None:
            continue
        step = config.weights.get(name, 0.0) / cat.n
        movable = cat.passed if passes else cat.n - cat.passed
        steps.extend([step] * movable)
    steps.sort(reverse=True)
    value, items = sigma_total, 0
    for step in steps:
        if (value < minimum - _EPS) if passes else (value >= minimum - _EPS):
            break
        value += -step if passes else step
        items += 1
    crossed = (value < minimum - _EPS) if passes else (value >= minimum - _EPS)
    delta = sigma_total - minimum
    side = f"{abs(delta):.3f} {'above' if passes else 'below'} {minimum:.2f}"
    if not crossed:
        return SigmaMargin(sigma_total, minimum, passes, delta, None, None,
                           f"sigma_total {sigma_total:.3f}: {side}; no change of items crosses it")
    change = count_words(items, "fewer passing item" if passes else "more passing item")
    value, delta = round(value, 12), round(delta, 12)
    return SigmaMargin(sigma_total, minimum, passes, delta, items, value,
                       f"sigma_total {sigma_total:.3f}: {side}; {change} (the heaviest) makes it {value:.3f}")


def gloss_margin(config: GateConfig, categories: Mapping[str, CategoryResult], sigma_total: float | None) -> Margin:
    """Every category's margin, sigma_total's, and which category is closest to flipping."""
    margins = {name: m for name, cat in categories.items()
               if (m := category_margin(cat, config.category_floor)) is not None}
    closest = min(margins.values(), key=lambda m: (m.items, abs(m.score - m.floor)), default=None)
    return Margin(margins, sigma_margin(config, categories, sigma_total), closest.category if closest else None)
