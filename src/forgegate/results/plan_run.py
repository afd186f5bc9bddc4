"""A plan run (``forgegate run --json``): each comparison through its declared instruments, then the gate."""

from __future__ import annotations

from typing import Literal

from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, ReasonModel, ReviewSchemaVersion, Strict
from forgegate.results.damage import DamageAxis
from forgegate.results.eval import BatteryRef, GateConfigRef, PlanArmGloss
from forgegate.results.memorization import MemorizationAxis
from forgegate.results.plan_cost import PlanCost
from forgegate.results.primary import PrimaryValue
from forgegate.results.quality import QualityTable
from forgegate.results.semantic import PlanSemanticMetrics
from forgegate.results.semantic_blocks import CodebookInfo, RecurrenceBlock, TopologyBlock
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
    primary_value: PrimaryValue | None
    """A semantic or gloss primary endpoint's number (its keys are the endpoint's); None for an axis primary."""
    voice: VoiceAxis | None
    memorization: MemorizationAxis | None
    damage: DamageAxis | None
    label: str
    candidate_role: str | None = None
    """The candidate's role (``candidate``, ``ship_candidate``, ``tied_candidate``): with a ship decision this
    comparison's word is its own, and the plan's word is the shipping arm's."""


class PlanSemantic(Gated):
    """The semantic instrument: codebook used, cost guardrails, and the library's metrics table."""

    codebook: CodebookInfo
    """The codebook the run used."""
    cost: PlanCost
    """Per condition: T_GPT v0.8.1's cost guardrails."""
    out_dir: str
    experiment_note: str | None
    topology: TopologyBlock | None = None
    """E3_TOPOLOGY: the compared aggregates, their token budgets, AGG_COVERAGE (primary) and MINORITY_RECALL
    (secondary, Holm) candidate - control with intervals; None for other experiments."""
    recurrence: RecurrenceBlock | None = None
    """E4_R_META: the blinded structural-recurrence rate per arm, structural - style control and the ratio with
    intervals (None until the sheet is filled); None when the plan declares no recurrence sheet."""
    metrics: PlanSemanticMetrics | None
    quality: dict[str, QualityTable] | None = None
    """T_GPT's Q_task / Q_fact guardrails the plan declared, by measure (None: none declared)."""


class PlanGloss(Gated):
    """The gloss instrument: one GLOSS result per arm, decided over the candidate arms."""

    rule: str
    battery: BatteryRef | None
    gate_config: GateConfigRef | None
    arms: dict[str, PlanArmGloss]


class ShipChoice(Strict):
    """Which of the tied candidates ships by the plan's pre-registered ``[tiebreak]`` (``gate.ship``), or none."""

    arm: str | None
    """The candidate that ships; None: none does (the last reason says why)."""
    outcome: Gate
    """The last step's word: PASS (chosen), HOLD (chosen but HOLD, or a tie left to the operator), FAIL (every
    candidate fails), INCOMPLETE (a candidate could not be ranked)."""
    candidates: list[str]
    """The candidates the decision chose among: the ship candidate, then the tied candidates."""
    ship_candidate: str | None = None
    """The arm with role ``ship_candidate`` (lv-hemingway v2 § 2's "ship candidate")."""
    min_variance_ratio: float | None = None
    """The plan's stated ratio at which the seed-variance axis resolves (None: the axis is not declared)."""
    axes: list[str]
    """The resolving axes in the order the plan declared them (``memorization``, ``seed_spread``)."""
    prior: str | None
    """The declared prior, which decides only a tie the axes leave; None when the plan named none."""
    reasons: list[ReasonModel]
    """Every step of the reasoning, in order."""


class LeakAuditRecord(Strict):
    """The leak audit the plan's lock carries (``[leak_audit]``): its result's sha256 and gate word."""

    sha256: str
    """sha256 of the audit's ``--json`` result bytes, as locked."""
    gate: str
    """The audit's gate word (PASS, FAIL: a leak, INVALID: a control failed)."""
    finding: str
    """The audit's finding (CLEAN or LEAK)."""
    origin: str
    """The result file as the plan names it, or 'ran at lock' when ``plan lock`` ran the audit."""
    detail: str
    """Why the plan could lock on it (``gate.audit.lock_audit_reason``), e.g. a train leak on the record beside a
    clean val split."""


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
    ships: ShipChoice | None = None
    """The ship choice between the tied candidates; None when the plan declares no ``[tiebreak]``."""
    leak_audit: LeakAuditRecord | None = None
    """The leak audit on the plan's lock; None when the plan names none."""
