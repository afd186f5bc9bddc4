"""The GLOSS eval result as report data: category rows and chart, the failure report, loop highlights.

Everything here is read from the eval JSON contract (``forgegate.pipeline.gloss_scoring.result_json``);
nothing is re-scored. Strings stay raw: the templates escape them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from forgegate.report.fmt import num
from forgegate.report.plots import Bar, category_chart

_FLOOR_RULE = re.compile(r"^category .+ >= ([0-9]*\.?[0-9]+)$")
_SIGMA_RULE = re.compile(r"^sigma_total >= ([0-9]*\.?[0-9]+)$")


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


def _threshold(payload: dict[str, Any], key: str, rule: re.Pattern[str]) -> float | None:
    """The gate's own threshold: from the gate_config block, else from the rule text the gate wrote."""
    value = (payload.get("gate_config") or {}).get(key)
    if isinstance(value, int | float):
        return float(value)
    for reason in payload.get("reasons", []):
        match = rule.match(str(reason.get("rule", "")))
        if match:
            return float(match.group(1))
    return None


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


def item_view(item: dict[str, Any]) -> ItemView:
    response = item.get("response")
    if response is None:
        segs: tuple[Segment, ...] = ()
        span, note = None, None
        missing = f"{item.get('finish', 'missing')}: {item.get('error') or 'no response stored'}"
    else:
        segs, span, note = segments(str(response), item.get("loop_span"))
        missing = None
    return ItemView(
        id=str(item.get("id")), category=str(item.get("category")), prompt=str(item.get("prompt", "")),
        segments=segs, missing=missing, tokens=num(item.get("tokens")),
        token_source=str(item.get("token_source") or "unknown"), finish=str(item.get("finish")),
        score=num(item.get("score"), 2), failure_modes=tuple(item.get("failure_modes") or ()),
        detail=str(item.get("detail") or ""), loop_span=span, span_note=note)


def _sigma_text(sigma: float | None, live: bool) -> str:
    if live:
        return "not used by the live test"
    return "n/a (answers missing)" if sigma is None else num(sigma, 2)


def gloss_view(payload: dict[str, Any]) -> GlossView:
    items = payload.get("items", [])
    floor = _threshold(payload, "category_floor", _FLOOR_RULE)
    sigma_min = _threshold(payload, "sigma_total_min", _SIGMA_RULE)
    rows = []
    for name, cat in payload["categories"].items():
        failing = tuple(item_view(i) for i in items if i.get("category") == name and not i.get("passed"))
        rows.append(CategoryRow(name=name, score=num(cat.get("score"), 2), passed=int(cat.get("passed", 0)),
                                n=int(cat.get("n", 0)), missing=int(cat.get("missing") or 0),
                                weight=num(cat.get("weight"), 2), gate=str(cat.get("gate")), failing=failing))
    bars = [Bar(name, cat.get("score"), str(cat.get("gate"))) for name, cat in payload["categories"].items()]
    sigma = payload.get("sigma_total")
    live = payload.get("kind") == "live"
    chart = category_chart(bars, floor=floor, sigma_total=sigma, sigma_min=sigma_min, show_sigma=not live)
    loops = tuple(item_view(i) for i in items if i.get("loop_span") is not None and i.get("response") is not None)
    return GlossView(
        title="GLOSS live test" if payload.get("kind") == "live" else "GLOSS eval",
        chart_svg=chart, floor=floor, sigma_total=_sigma_text(sigma, live),
        sigma_min=sigma_min, categories=tuple(rows),
        failed_categories=tuple(payload.get("failed_categories") or ()),
        failure_modes=tuple(payload.get("failure_modes") or ()),
        token_sources=tuple(payload.get("token_sources") or ()), loops=loops,
        failing_count=sum(len(r.failing) for r in rows))
