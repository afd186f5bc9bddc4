"""Builders for per-response check tests: a battery item and a backend completion."""

from __future__ import annotations

from typing import Any

from forgegate.battery.item import BatteryItem
from forgegate.checks import tokenize_for_loops
from forgegate.core.records import Completion, FinishReason


def item(**fields: Any) -> BatteryItem:
    base: dict[str, Any] = {"id": "T-01", "category": "LX-A", "prompt": "Who is α?", "max_tokens": 64}
    base.update(fields)
    return BatteryItem(**base)


def completion(
    text: str,
    *,
    finish: FinishReason = "stop",
    tokens: int | None = None,
    token_texts: list[str] | None | bool = True,
) -> Completion:
    """``token_texts=True`` splits the text with tokenize_for_loops; None means no boundaries."""
    pieces = tokenize_for_loops(text) if token_texts is True else token_texts or None
    count = tokens if tokens is not None else (len(pieces) if pieces else max(1, len(text.split())))
    return Completion(
        text=text,
        tokens=count,
        token_source="embedded-tokens",
        finish=finish,
        latency_s=0.01,
        token_texts=tuple(pieces) if pieces else None,
    )
