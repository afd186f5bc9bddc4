"""The GLOSS eval result (``forgegate eval``, ``live``, ``rescore``): one model, ``kind`` "eval" or "live".

The live test is the same contract as the battery eval (same writer, same fields; its
categories carry no sigma rule), so it is the same model and ``kind`` tells them apart.
A plan's per-arm GLOSS result is the same body with the arm's fields (``PlanArmGloss``).
"""

from __future__ import annotations

from typing import Literal

from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, ReviewSchemaVersion, Strict


class Sampling(Strict):
    temperature: float | None
    top_p: float | None


class BatteryRef(Strict):
    path: str
    sha256: str
    items: int


class GateConfigRef(Strict):
    name: str
    sha256: str
    """Identity of the config: its bytes and the matching rule (forgegate.gate.gloss_config.gate_identity)."""
    match_rule: str | None = None
    """The rule answers were matched by (forgegate.checks.match.MATCH_RULE); None in results written before it."""
    category_floor: float
    sigma_total_min: float


class CategoryScore(Strict):
    score: float | None
    """Mean over the answered items; None when none was answered."""
    n: int
    passed: int
    missing: int
    weight: float | None
    gate: Gate


class ReviewEntry(Strict):
    """One human decision on an item: the word, who gave it, when, and why."""

    decision: Literal["pass", "fail"]
    reviewer: str | None
    """Who decided; None only in a result upgraded from version 1, which kept no reviewer."""
    decided_at: str | None
    """When (UTC, ISO 8601), as the run store recorded it; None only in an upgraded version-1 result."""
    note: str | None


class ItemReview(ReviewEntry):
    """The decision that counts (the latest) and, oldest first, the decisions it replaced.

    A decision is never overwritten: a changed mind is a new decision, and the old one
    stays in ``history``.
    """

    history: list[ReviewEntry]


class EvalItem(Strict):
    """One scored request: an item of the battery under one seed."""

    id: str
    category: str
    seed: int | None
    prompt: str
    response: str | None
    tokens: int | None
    token_source: str | None
    finish: str
    error: str | None
    latency_s: float | None
    score: float | None
    """None when the request errored or awaits review: never a zero, never a pass."""
    passed: bool
    failure_mode: str | None
    failure_modes: list[str]
    detail: str
    needs_review: bool
    review: ItemReview | None
    """The human decision on an answer that needed one (schema version 2; version 1 wrote only the word)."""
    loop_span: tuple[int, int] | None
    """Character offsets of the repeated span in ``response``."""


class EvalBody(Gated):
    """Every field of a GLOSS result except ``kind`` (whose values depend on where the result sits)."""

    forgegate_version: str
    run_id: str | None
    model: str | None
    backend: str | None
    model_digest: str | None
    seed: int | None
    sampling: Sampling
    store: str
    battery: BatteryRef
    created: str | None
    gate_config: GateConfigRef
    sigma_total: float | None
    categories: dict[str, CategoryScore]
    failed_categories: list[str]
    failure_modes: list[str]
    token_sources: list[str]
    items: list[EvalItem]
    failure_mode_signatures: dict[str, bool] | None
    """Each failure-mode signature present/absent, when gated with --check-failure-modes."""


class EvalResult(EvalBody):
    """A GLOSS battery eval (``kind`` "eval") or live test (``kind`` "live")."""

    kind: Literal["eval", "live"]
    schema_version: ReviewSchemaVersion
    regated_from: str | None = None
    """``rescore --gate-config``: the sha256 of the gate config the run was first gated with."""

    @property
    def live(self) -> bool:
        return self.kind == "live"


class PlanArmGloss(EvalBody):
    """One arm's GLOSS result inside a plan run (``kind`` is the run store's: "plan")."""

    kind: Literal["plan"]
    arm: str
    role: str
    decides: bool
    adapter: str | None
    plan_hash: str
