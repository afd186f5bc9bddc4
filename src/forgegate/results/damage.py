"""Axis C, damage (``forgegate damage``; a plan comparison's ``damage`` block): ran-on and out-of-band rates."""

from __future__ import annotations

from typing import Literal

from forgegate.core.declared import DamageMetric
from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, SchemaVersion, Strict


class DamageArm(Strict):
    rate_by_seed: dict[str, float]
    rate: float | None
    spread: float | None
    unmeasured: int


class DamageMetricResult(Strict):
    arms: dict[str, DamageArm]
    difference: float | None
    floor_pairwise: float | None
    floor_all_arms: float | None
    verdict: Gate


class DamageAxis(Gated):
    band: tuple[int, int]
    control: str
    candidate: str
    metrics: dict[DamageMetric, DamageMetricResult]
    verdict: str


class DamageResult(DamageAxis):
    """``forgegate damage --json``."""

    kind: Literal["damage"]
    schema_version: SchemaVersion
