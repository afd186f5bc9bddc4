"""Axis B, memorisation (``forgegate memorization``; a plan comparison's ``memorization`` block)."""

from __future__ import annotations

from typing import Literal

from forgegate.results.base import Gated, SchemaVersion, Strict


class MemorizationArm(Strict):
    generations: int
    hits: int
    hit_rate: float
    max: int
    hit_rate_by_seed: dict[str, float]
    max_by_seed: dict[str, int]


class PositiveControl(Strict):
    passages: int
    passage_words: int
    hit_rate: float
    max: int
    min_found: int
    saturated: bool


class NegativeControl(Strict):
    passages: int
    hit_rate: float
    max: int
    clean: bool


class MemorizationAxis(Gated):
    n: int
    corpus_words: int
    control: str
    candidate: str
    hit_rate_margin: float
    max_margin: int
    arms: dict[str, MemorizationArm]
    positive_control: PositiveControl
    negative_control: NegativeControl
    verdict: str


class MemorizationResult(MemorizationAxis):
    """``forgegate memorization --json``: the axis plus the corpus files and the control seed."""

    kind: Literal["memorization"]
    schema_version: SchemaVersion
    corpus: list[str] | None = None
    control_seed: int | None = None
