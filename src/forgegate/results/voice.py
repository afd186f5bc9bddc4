"""Axis A, voice (``forgegate voice``; a plan comparison's ``voice`` block): Burrows's Delta per arm and seed."""

from __future__ import annotations

from typing import Literal

from forgegate.core.declared import FloorRule
from forgegate.results.base import Gated, SchemaVersion, Strict


class VoiceReference(Strict):
    words: int
    segments: int
    segment_words: int
    features: int
    paths: list[str] | None = None
    """The reference files (``forgegate voice`` writes them; a plan records its inputs' hashes instead)."""


class VoiceArm(Strict):
    delta_by_seed: dict[str, float]
    delta: float | None
    spread: float | None
    words_by_seed: dict[str, int]


class VoiceControlsModel(Strict):
    heldout_deltas: list[float]
    heldout_max: float
    chunk_words: int
    control_arm_min: float | None
    contrasts: dict[str, float]
    passed: bool


class VoiceAxis(Gated):
    """The voice axis as a plan comparison carries it."""

    author: str
    reference: VoiceReference
    control: str
    candidate: str
    arms: dict[str, VoiceArm]
    floor_rule: FloorRule
    floor_pairwise: float | None
    floor_all_arms: float | None
    floor_all_arms_from: str | None
    floors_disagree: bool | None
    gap: float | None
    ratio: float | None
    controls: VoiceControlsModel
    verdict: str
    """The gate word again (older readers look for it here)."""


class VoiceResult(VoiceAxis):
    """``forgegate voice --json``."""

    kind: Literal["voice"]
    schema_version: SchemaVersion
