"""The GLOSS eval result as report data: category rows and chart, the failure report, loop highlights.

Everything here is read from the typed eval result (``forgegate.results.EvalResult``): thresholds
from its gate config, scores from its categories; nothing is re-scored. Strings stay raw: the
templates escape them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from forgegate.core.gloss_v2 import report_title
from forgegate.report.fmt import num, sigma_text
from forgegate.report.plots import Bar, category_chart
from forgegate.report.samples_section import (
    category_over_samples,
    item_passes,
    margin_lines,
    samples_line,
    sigma_over_samples,
)
from forgegate.report.stop_section import StopView, stop_view
from forgegate.results import EvalItem, EvalResult
from forgegate.results.eval import ReviewEntry


@dataclass(frozen=True)
class Segment:
    """A run of response text; ``loop`` marks the repeated span (rendered inside ``<mark>``)."""

    text: str
    loop: bool = False


@dataclass(frozen=True)
class ItemView:
    id: str
    category: str
    prompt: str
    segments: tuple[Segment, ...]
    missing: str | None  # why there is no response (error, never generated), None when there is one
    tokens: str
    token_source: str
    finish: str
    score: str
    failure_modes: tuple[str, ...]
    detail: str
    loop_span: tuple[int, int] | None
    span_note: str | None
    passes: str = ""
    """``3/5 samples passed`` with K > 1 samples per item (the item shown is sample 1's); empty with one."""


@dataclass(frozen=True)
class ReviewLine:
    """A human decision as the report prints it (strings raw: the template escapes them)."""

    decision: str
    reviewer: str
    decided_at: str
    note: str | None


@dataclass(frozen=True)
class ReviewView:
    """An answer that needed a human: the decision that counts (None: pending) and those it replaced."""

    id: str
    category: str
    latest: ReviewLine | None
    replaced: tuple[ReviewLine, ...]


@dataclass(frozen=True)
class CategoryRow:
    name: str
    score: str
    passed: int
    n: int
    missing: int
    weight: str
    gate: str
    failing: tuple[ItemView, ...]
    over_samples: str = ""
    """The mean over K samples with its interval (empty with one sample)."""


@dataclass(frozen=True)
class GlossView:
    title: str
    chart_svg: str
    floor: float | None
    sigma_total: str
    sigma_min: float | None
    categories: tuple[CategoryRow, ...]
    failed_categories: tuple[str, ...]
    failure_modes: tuple[str, ...]
    token_sources: tuple[str, ...]
    loops: tuple[ItemView, ...]
    failing_count: int
    stop: StopView | None = None
    followup: str | None = None
    reviews: tuple[ReviewView, ...] = ()
    samples: str | None = None
    """``K = 5 samples per item: PASS in 3 of 5 replicates (flips: ...)``; None with one sample."""
    sigma_over: str = ""
    margins: tuple[str, ...] = ()
    """Every category's and sigma_total's margin to the other side of its floor."""


def segments(response: str, span: Any) -> tuple[tuple[Segment, ...], tuple[int, int] | None, str | None]:
    """Split ``response`` at the loop span (character offsets); a span outside the text is not drawn."""
    if span is None:
        return (Segment(response),), None, None
    try:
        start, end = int(span[0]), int(span[1])
    except (TypeError, ValueError, IndexError):
        return (Segment(response),), None, f"loop span {span!r} is not [start, end]: not highlighted"
    if not 0 <= start < end <= len(response):
        return (Segment(response),), None, (f"loop span [{start}, {end}] lies outside the {len(response)}-character "
                                            "response: not highlighted")
    parts = (Segment(response[:start]), Segment(response[start:end], loop=True), Segment(response[end:]))
    return tuple(p for p in parts if p.text), (start, end), None


def item_view(item: EvalItem) -> ItemView:
    if item.response is None:
        segs: tuple[Segment, ...] = ()
        span, note = None, None
        missing = f"{item.finish}: {item.error or 'no response stored'}"
    else:
        segs, span, note = segments(item.response, item.loop_span)
        missing = None
    return ItemView(
        id=item.id, category=item.category, prompt=item.prompt,
        segments=segs, missing=missing, tokens=num(item.tokens),
        token_source=item.token_source or "unknown", finish=item.finish,
        score=num(item.score, 2), failure_modes=tuple(item.failure_modes),
        detail=item.detail, loop_span=span, span_note=note)


def _line(entry: ReviewEntry) -> ReviewLine:
    return ReviewLine(entry.decision, entry.reviewer or "unknown (a version-1 result)", entry.decided_at or "unknown",
                      entry.note)


def review_view(item: EvalItem) -> ReviewView:
    """Who decided an item, when and why; ``latest`` None while it awaits a reviewer."""
    review = item.review
    if review is None:
        return ReviewView(item.id, item.category, None, ())
    return ReviewView(item.id, item.category, _line(review), tuple(_line(h) for h in review.history))


def gloss_view(result: EvalResult) -> GlossView:
    """The GLOSS section: the floor and sigma minimum are the gate config's own numbers (what the gate used)."""
    floor = result.gate_config.category_floor
    sigma_min = result.gate_config.sigma_total_min
    rows = []
    for name, cat in result.categories.items():
        failing = tuple(replace(item_view(i), passes=item_passes(result, i.id))
                        for i in result.items if i.category == name and not i.passed)
        rows.append(CategoryRow(name=name, score=num(cat.score, 2), passed=cat.passed, n=cat.n, missing=cat.missing,
                                weight=num(cat.weight, 2), gate=cat.gate.value, failing=failing,
                                over_samples=category_over_samples(result, name)))
    bars = [Bar(name, cat.score, cat.gate.value) for name, cat in result.categories.items()]
    chart = category_chart(bars, floor=floor, sigma_total=result.sigma_total, sigma_min=sigma_min,
                           show_sigma=not result.live)
    loops = tuple(item_view(i) for i in result.items if i.loop_span is not None and i.response is not None)
    return GlossView(
        title=report_title(result.live, result.gate_config.gloss_v2, str(result.gate_config.name)),
        chart_svg=chart, floor=floor, sigma_total=sigma_text(result.sigma_total, result.live),
        sigma_min=sigma_min, categories=tuple(rows),
        failed_categories=tuple(result.failed_categories),
        failure_modes=tuple(result.failure_modes),
        token_sources=tuple(result.token_sources), loops=loops,
        failing_count=sum(len(r.failing) for r in rows),
        stop=None if result.stop_distribution is None else stop_view(result.stop_distribution),
        followup=None if result.format_followup is None else result.format_followup.finding,
        reviews=tuple(review_view(i) for i in result.items if i.needs_review or i.review is not None),
        samples=samples_line(result), sigma_over=sigma_over_samples(result), margins=tuple(margin_lines(result)))
