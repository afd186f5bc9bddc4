"""The GLOSS eval result (``forgegate eval``, ``live``, ``rescore``): one model, ``kind`` "eval" or "live".

The live test is the same contract as the battery eval (same writer, same fields; its
categories carry no sigma rule), so it is the same model and ``kind`` tells them apart.
A plan's per-arm GLOSS result is the same body with the arm's fields (``PlanArmGloss``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, ReviewSchemaVersion, Strict
from forgegate.results.samples import MarginResult, SamplesResult


class Sampling(Strict):
    """The sampling a GLOSS run's answers were generated under."""

    temperature: float | None
    """Sent with every request; None: not sent (as served), or a result written before it was recorded."""
    top_p: float | None
    """Sent with every request; None: not sent (as served)."""
    procedure: str | None = None
    """"as served" (GLOSS v2's procedure: the cap and a recorded seed, nothing else that changes decoding) or "a
    departure from the spec's procedure" (a temperature or top_p was set); None in results written before it."""
    served: dict[str, float | int | str | bool | None] | None = None
    """The sampling the backend serves with when a request sends none, as it reported it (Ollama: the model's
    parameters from /api/show; embedded, managed and transformers backends: the values they use; an
    OpenAI-compatible server: "as served"); None when the backend cannot say, or the run is older."""


class BatteryRef(Strict):
    path: str
    sha256: str
    items: int
    marked_false_positive: list[str] = Field(default_factory=list)
    """Versions a lineage recorded as EVAL_FALSE_POSITIVE on these battery bytes (the store's battery marks,
    ``forgegate.lineage.marks``): GLOSS v2 says the battery 'is broken and must be updated before the next forge'."""


class GateConfigRef(Strict):
    name: str
    sha256: str
    """Identity of the config: its bytes and the matching rule (forgegate.gate.gloss_config.gate_identity)."""
    match_rule: str | None = None
    """The rule answers were matched by (forgegate.core.match_rule.MATCH_RULE); None in results written before it."""
    category_floor: float
    sigma_total_min: float
    gloss_v2: bool | None = None
    """Whether the gate is GLOSS v2 (False: it declared ``gloss_v2 = false``); None in results written before
    forgegate checked the spec's invariants. Only a GLOSS v2 result is titled "GLOSS EVAL v2" or graduates."""
    loop_rule: str | None = None
    """The loop rule the answers were judged by (forgegate.checks.loops.LOOP_RULE); None before it was recorded."""
    loops: dict[str, float | int] | None = None
    """The loop detector's settings the run used (the gate config's ``[loops]``, defaults filled in)."""


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
    """The reviewer's word on the answer: pass or fail."""
    reviewer: str | None
    """Who decided; None only in a result upgraded from version 1, which kept no reviewer."""
    decided_at: str | None
    """When (UTC, ISO 8601), as the run store recorded it; None only in an upgraded version-1 result."""
    note: str | None
    """Why, in the reviewer's words; None when no note was given."""


class ItemReview(ReviewEntry):
    """The decision that counts (the latest) and, oldest first, the decisions it replaced.

    A decision is never overwritten: a changed mind is a new decision, and the old one
    stays in ``history``.
    """

    history: list[ReviewEntry]
    """The earlier decisions this one replaced, oldest first (empty when it is the first)."""


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
    unfinished: bool = False
    """The store does not show that the server finished this answer (``StoredResponse.unconfirmed``: stored
    before forgegate checked, issue 33): it may be a stream the server cut, scored as if whole. Running the
    same command with the same store generates it again."""


class StopAnswerEntry(Strict):
    """One LX-STOP request in the termination distribution."""

    id: str
    max_tokens: int
    tokens: int | None
    finish: str
    at_cap: bool
    """Ran to its cap: finish "length" or ``tokens`` >= ``max_tokens``."""


class StopDistributionResult(Strict):
    """GLOSS v2's "termination distribution" of LX-STOP (forgegate.checks.stop_distribution)."""

    category: str
    answered: int
    missing: int
    at_cap: int
    finishes: dict[str, int]
    """Answers per finish reason (stop, length, loop ...)."""
    answers: list[StopAnswerEntry]
    stop_failure: bool | None
    """STOP_FAILURE's signature, "every response runs to exactly max_tokens"; None when undecided (answers missing)."""


class FormatFollowUp(Strict):
    """GLOSS v2's follow-up to a low LX-B / LX-G / LX-X: "should trigger format audit, not automatic
    disqualification" (EVAL_FALSE_NEGATIVE). It never changes the verdict (invariant 1: no category is waived)."""

    categories: list[str]
    """The failed categories that call for the audit."""
    corpus: str | None
    """The training corpus audited; None when none was given (the audit is then only recommended)."""
    audit_gate: str | None
    """The format audit's gate word (PASS, FAIL: a mismatch, INVALID: a control failed); None when it was not run."""
    flagged: dict[str, list[int]]
    """Per category named above: [items shaped unlike the corpus, items]; empty when the audit was not run."""
    finding: str


class LoopCutoff(Strict):
    """Answers cut off as loops while generating (finish ``loop``) and the tokens that spared."""

    enabled: bool | None
    """Whether the last generation into the run cut loops off; None: not recorded (a plan arm, an older run)."""
    cut: int
    """Stored answers with finish ``loop``."""
    tokens_saved_estimate: int
    """For each cut-off answer, its cap minus the tokens it generated: an upper bound (the answer might
    have stopped on its own before the cap), labelled an estimate."""


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
    failure_mode_signatures: dict[str, bool | None] | None
    """Each v9 failure-mode signature present (true), absent (false) or undecided (null: answers missing), by
    ``checks.signatures.signatures_present``, when gated with --check-failure-modes."""
    format_followup: FormatFollowUp | None = None
    """Set when LX-B, LX-G or LX-X failed (an added optional field, like ``stop_distribution``)."""
    stop_distribution: StopDistributionResult | None = None
    """LX-STOP's tokens and finish reasons; None without LX-STOP items and in results written before it
    (an added optional field: schema_version stays 1)."""
    loop_cutoff: LoopCutoff | None = None
    """None in results written before the cut-off existed."""
    served_model: str | None = None
    """The server's own id for the model, read from its model list before generating (``openai``: ``/models``,
    ``ollama``: ``/api/tags``); None for a backend forgegate runs itself, and in results written before it
    (an added optional field)."""
    margin: MarginResult | None = None
    """How many items each category, and sigma_total, is from the other side of its floor (issue 47; an added
    optional field: None for a live test and in results written before it)."""
    samples: SamplesResult | None = None
    """K > 1 samples per item: the replicates, each item's passes out of K, intervals (issue 47; None with one
    sample, the spec's procedure)."""


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
