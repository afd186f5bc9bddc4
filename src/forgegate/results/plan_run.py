"""A plan run (``forgegate run --json``): each comparison through its declared instruments, then the gate."""

from __future__ import annotations

from typing import Any, Literal

from forgegate.results.base import Gated, ReviewSchemaVersion, Strict
from forgegate.results.damage import DamageAxis
from forgegate.results.eval import BatteryRef, GateConfigRef, PlanArmGloss
from forgegate.results.memorization import MemorizationAxis
from forgegate.results.semantic import PlanSemanticMetrics
from forgegate.results.voice import VoiceAxis


class PlanRef(Strict):
    name: str
    path: str
    plan_hash: str
    inputs: dict[str, str]
    """Input file -> sha256, from the plan's lock."""


class GenerationCounts(Strict):
    planned: int
    skipped_finished: int
    generated: int
    failed: int
    tokens: int
    stored_ok: int
    errors: int
    missing: int


class RequestError(Strict):
    key: str
    error: str | None


class ComparisonEntry(Gated):
    """One declared comparison (control vs candidate) and the instruments that scored it."""

    control: str
    candidate: str
    primary: str
    primary_value: dict[str, Any] | None
    """A semantic or gloss primary endpoint's number (its shape is the endpoint's); None for an axis primary."""
    voice: VoiceAxis | None
    memorization: MemorizationAxis | None
    damage: DamageAxis | None
    label: str


class PlanSemantic(Gated):
    """The semantic instrument: codebook used, cost guardrails, and the library's metrics table."""

    codebook: dict[str, Any]
    cost: dict[str, Any]
    out_dir: str
    experiment_note: str | None
    metrics: PlanSemanticMetrics | None


class PlanGloss(Gated):
    """The gloss instrument: one GLOSS result per arm, decided over the candidate arms."""

    rule: str
    battery: BatteryRef | None
    gate_config: GateConfigRef | None
    arms: dict[str, PlanArmGloss]


class PlanRunResult(Gated):
    kind: Literal["plan"]
    schema_version: ReviewSchemaVersion
    label: str
    """The gate word as the verdict table prints it (HOLD says whose call it is)."""
    plan: PlanRef
    author: str | None
    store: str
    model_digests: dict[str, str | None]
    generation: GenerationCounts
    errors: list[RequestError]
    comparisons: list[ComparisonEntry]
    semantic: PlanSemantic | None
    gloss: PlanGloss | None
