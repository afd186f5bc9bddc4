"""The instruments a plan may declare: their names, parameters, endpoints and pass rules, in one place.

``INSTRUMENT_NAMES`` is the one list of instrument names: the plan schema's
``[instruments]`` table, the primary-endpoint check and the CLI read it. Each
instrument's parameter model says what it measures with; its pass-rule fields say
how the gate decides (the gate reads them from here, never from constants).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, ValidationInfo, field_validator, model_validator

from forgegate.core.declared import (
    DAMAGE_METRICS,
    VERDICT_FLOOR_RULE,
    DamageMetric,
    FloorRule,
    SemanticField,
    floor_rule_refusal,
)
from forgegate.core.experiments import RECURRENCE_ENDPOINT, Experiment
from forgegate.core.limits import MAX_COUNT, MAX_PASSAGES, MIN_SEGMENT_WORDS
from forgegate.plan.order import ExperimentOrder
from forgegate.plan.quality import QualityDeclaration
from forgegate.plan.recurrence import RecurrenceParams
from forgegate.plan.topology import AggregationParams
from forgegate.userfile import Count, RngSeed, UserFileModel

InstrumentName = Literal["voice", "memorization", "damage", "gloss", "semantic"]
INSTRUMENT_NAMES: tuple[str, ...] = get_args(InstrumentName)


class VoiceParams(UserFileModel):
    """Axis A: Burrows's Delta over character bigrams against a held-out reference of the author."""

    reference: str = Field(min_length=1)
    """Held-out reference text of the author (path, relative to the plan)."""
    n_features: Count = 300
    """How many of the reference's most frequent character bigrams are the features."""
    segment_words: Count = Field(ge=MIN_SEGMENT_WORDS)
    """Words per reference segment (the z-scores' mean and sd are taken over segments)."""
    contrasts: dict[str, str] = Field(default_factory=dict)
    """Optional negative controls: label -> text of another author (path); each must score farther."""
    folds: Count = Field(default=5, ge=2)
    """Held-out reference folds of the positive control (each must score below the control arm)."""
    floor: FloorRule = VERDICT_FLOOR_RULE
    """Pass rule: the noise floor is max(spread(candidate), spread(control)) ('pairwise', the verdict); the
    largest spread of any arm ('all-arms') is always printed beside it as the sensitivity line, and a plan
    may not choose it as the rule that decides."""

    @field_validator("floor")
    @classmethod
    def _pairwise_decides(cls, value: FloorRule) -> FloorRule:
        if (why := floor_rule_refusal(value)) is not None:
            raise ValueError(f"{why}. Write floor = '{VERDICT_FLOOR_RULE}' or leave it out")
        return value


class MemorizationParams(UserFileModel):
    """Axis B: longest verbatim n-gram of each generation against the training corpus."""

    corpus: tuple[str, ...] = Field(min_length=1)
    """Training-corpus files (the renamed copies), relative to the plan."""
    n: Count = 8
    """The n-gram length in words that counts as a verbatim hit."""
    control_seed: RngSeed
    """Seed of the numpy Generator that picks the positive control's corpus passages."""
    passages: int = Field(default=20, gt=0, le=MAX_PASSAGES)
    """How many corpus passages the positive control checks (each must saturate)."""
    hit_rate_margin: float = Field(ge=0, le=1)
    """Pass rule: the candidate's hit rate may exceed the control's by at most this."""
    max_margin: int = Field(ge=0, le=MAX_COUNT)
    """Pass rule: the candidate's longest match (words) may exceed the control's by at most this."""


class DamageParams(UserFileModel):
    """Axis C: ran-on (hit the token cap) and out-of-band (word count outside the band) rates."""

    band: tuple[Count, Count]
    """Inclusive word band [low, high] a generation must land in."""
    metrics: tuple[DamageMetric, ...] = DAMAGE_METRICS
    """Which damage rates decide (both by default)."""

    @model_validator(mode="after")
    def _band_ordered(self) -> DamageParams:
        low, high = self.band
        if not 0 < low <= high:
            raise ValueError(f"band must be [low, high] with 0 < low <= high, got [{low}, {high}]")
        return self


class GlossParams(UserFileModel):
    """The GLOSS category gate over a battery fixture (the battery is ``[fixture] battery``)."""

    gate_config: str = Field(min_length=1)
    """'gloss-v2' for the bundled GLOSS v2 gate config, or a path to a gate-config TOML."""


class Price(UserFileModel):
    """Price of one arm's (or model's) tokens: per 1M input tokens and per 1M output tokens."""

    input_per_million: float = Field(ge=0)
    """Price of 1M input (prompt) tokens."""
    output_per_million: float = Field(ge=0)
    """Price of 1M output (generated) tokens."""


class Prices(UserFileModel):
    """``[instruments.semantic.prices]``: the currency and a price per arm name or per model name.

    An arm's own entry wins over its model's; every arm must be priced (checked against the plan's arms).
    """

    currency: str = Field(min_length=1)
    """The currency the prices are in (e.g. USD); reported with every cost."""
    arms: dict[str, Price] = Field(default_factory=dict)
    """Price per arm name (wins over the arm's model's)."""
    models: dict[str, Price] = Field(default_factory=dict)
    """Price per model name."""

    @model_validator(mode="after")
    def _some_price(self) -> Prices:
        if not self.arms and not self.models:
            raise ValueError("a price table needs [..prices.arms.<arm>] or [..prices.models.\"<model>\"] entries")
        return self

    def for_arm(self, arm: str, model: str | None) -> Price | None:
        return self.arms.get(arm) or (self.models.get(model) if model is not None else None)


class FieldBridge(UserFileModel):
    """``[[instruments.semantic.bridges]]``: an explicit measurement bridge between two T_GPT fields.

    T_GPT v0.8.1: "FIELD_TOK != FIELD_SEM != FIELD_TRAJ != FIELD_VIS. Cross-level claims require an explicit
    measurement bridge." Without one, comparing this plan's semantic result with a result of another field is
    refused (``forgegate semantic compare``).
    """

    fields: tuple[SemanticField, SemanticField]
    """The two fields the bridge links, e.g. ``["FIELD_SEM", "FIELD_TOK"]``."""
    how: str = Field(min_length=1)
    """The bridge itself: how a measurement in one field is read in the other (cited in every comparison)."""

    @model_validator(mode="after")
    def _two_fields(self) -> FieldBridge:
        if self.fields[0] == self.fields[1]:
            raise ValueError("a bridge links two different fields")
        return self


class SemanticValidation(UserFileModel):
    """The blinded human validation of the frozen codebook's clustering (``forgegate semantic validate``)."""

    sheet: str = Field(min_length=1)
    """The validation sheet with ``same_meaning`` filled by a human (path; may be filled after the lock:
    missing or partly blank, the semantic verdict is INCOMPLETE)."""
    key: str = Field(min_length=1)
    """The key written beside the sheet (``validation_key.csv``, path; locked with the plan)."""
    min_agreement: float | None = Field(default=None, ge=0, le=1)
    """Required share of pairs where human and clustering agree (point estimate); below it the semantic
    verdict is INVALID. None: the agreement is reported only."""


class SemanticParams(UserFileModel):
    """T_GPT semantic support and recoverability: fixture items are the tasks, seeds the N samples."""

    reference: str
    """Arm name of condition A, the pre-registered wider/reference condition."""
    contracted: str
    """Arm name of condition B, the candidate contracted condition."""
    recovery: str | None = None
    """Arm name of condition R: B under the generic recovery probes (needed for REC_GAIN)."""
    confirmatory: bool
    """True: a confirmatory collection (needs N >= 64 samples per task and condition, and everything
    ``pipeline.plan.confirmatory`` checks at plan check, lock and run)."""
    study_author: str | None = None
    """Who designed the study: may not be a primary relevance annotator (T_GPT: author_primary_annotation_forbidden);
    required when confirmatory, and the adjudicated relevance record is checked against it."""
    experiment: Experiment
    """The T_GPT experiment the plan runs (E1_STAGE, E2_RECOVERY, E3_TOPOLOGY, E4_R_META)."""
    primary_endpoint: str | None = Field(default=None, validate_default=True)
    """The metric that measures the experiment's primary endpoint where T_GPT v0.8.1 names no single one
    (required for E1_STAGE: ES_LOSS or REC_GAIN; for E4_R_META: one of T_GPT v0.8.1's metric names).
    E2_RECOVERY and E3_TOPOLOGY take T_GPT v0.8.1's (REC_GAIN, AGG_COVERAGE); a different declaration is refused."""
    prices: Prices | None = None
    """Optional price table: the estimated monetary cost per condition (absent: reported as null)."""
    codebook: str | None = None
    """The frozen codebook (from ``forgegate semantic freeze``); required when confirmatory."""
    relevance: str | None = None
    """Relevance R(c): the adjudicated record ``forgegate semantic relevance`` writes (annotators, adjudicator,
    kappa), or a bare ``{cluster, relevant}`` JSONL; without it every cluster counts as relevant. A confirmatory
    plan without the adjudicated record is INCOMPLETE."""
    tau_support: float = Field(default=0.02, gt=0, lt=1)
    """T_GPT's support floor: a semantic cluster counts as supported at this share of samples or more."""
    minimum_count: Count = 2
    """A cluster needs at least this many samples to count as supported."""
    sensitivity: tuple[float, ...] = (0.01, 0.03, 0.05)
    """Other support floors the metrics are also reported at (a sensitivity analysis; the verdict uses tau_support)."""
    bootstrap_resamples: Count = Field(default=10_000, ge=100)
    """Bootstrap resamples for every confidence interval (at least 100)."""
    bootstrap_seed: RngSeed
    """Seed of the bootstrap's numpy Generator (explicit: CIs must be reproducible)."""
    bridges: tuple[FieldBridge, ...] = ()
    """Measurement bridges this plan declares between T_GPT fields (none: its FIELD_SEM result is compared
    only with FIELD_SEM results)."""
    q_task: QualityDeclaration | None = None
    """T_GPT v0.8.1's Q_task guardrail, declared per task before confirmation (``plan.quality``): required for a
    confirmatory E1_STAGE, with its ``margin``."""
    q_fact: QualityDeclaration | None = None
    """T_GPT v0.8.1's Q_fact guardrail, only on the tasks with externally checkable factual claims."""
    factual_tasks: tuple[str, ...] | None = None
    """The tasks (fixture item ids) with externally checkable factual claims, declared before confirmation; ``[]``:
    none has. Where declared, Q_fact scores exactly these tasks; a confirmatory plan must declare it, and Q_fact on
    each (T_GPT v0.8.1: Q_fact is "used only on tasks with externally checkable factual claims")."""
    validation: SemanticValidation | None = None
    """The codebook's blinded human validation, scored against the clustering (needs the frozen 'codebook')."""
    aggregation: AggregationParams | None = None
    """E3_TOPOLOGY's compared aggregates and their matched token budget (required for E3_TOPOLOGY, only there)."""
    order: ExperimentOrder | None = None
    """Where the experiment stands in T_GPT's E1 -> E2 -> E3 -> E4 (``plan.order``): needed by a confirmatory plan
    of any experiment after E1_STAGE."""
    recurrence: RecurrenceParams | None = None
    """E4_R_META's arms and blinded recurrence sheet (with, and only with, primary_endpoint STRUCTURAL_RECURRENCE)."""

    @field_validator("primary_endpoint")
    @classmethod
    def _primary_declared(cls, value: str | None, info: ValidationInfo) -> str | None:
        from forgegate.core.experiments import primary_endpoint
        from forgegate.errors import UsageError

        experiment = info.data.get("experiment")
        if experiment is None:  # the experiment itself was refused
            return value
        try:
            primary_endpoint(experiment, value)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _codebook_when_confirmatory(self) -> SemanticParams:
        if self.confirmatory and self.codebook is None:
            raise ValueError("a confirmatory collection needs the frozen 'codebook' (assignments map to "
                             "frozen IDs or UNMAPPED)")
        if (self.experiment == "E3_TOPOLOGY") != (self.aggregation is not None):
            raise ValueError("E3_TOPOLOGY is AGG_COVERAGE at matched total-token budget: it needs "
                             "[instruments.semantic.aggregation] (aggregates, control, candidate, budget_tolerance), "
                             "and only E3_TOPOLOGY takes it")
        if (self.primary_endpoint == RECURRENCE_ENDPOINT) != (self.recurrence is not None):
            raise ValueError(f"primary_endpoint = \"{RECURRENCE_ENDPOINT}\" (E4_R_META's blinded recurrence rate "
                             "difference) goes with [instruments.semantic.recurrence] (structural, style_control, "
                             "sheet), and only it")
        if self.validation is not None and self.codebook is None:
            raise ValueError("'validation' scores the frozen codebook's clustering, and this plan names no "
                             "'codebook'")
        return self

    @model_validator(mode="after")
    def _e1_guardrails(self) -> SemanticParams:
        """E1_STAGE is "... with Q_task/Q_fact guardrails": a confirmatory E1 declares Q_task, every E1 guardrail
        its margin (a guardrail without one could flag nothing)."""
        if self.experiment != "E1_STAGE":
            return self
        if self.confirmatory and self.q_task is None:
            raise ValueError("a confirmatory E1_STAGE needs its Q_task guardrail declared before confirmation: "
                             "[instruments.semantic.q_task] with 'margin' and a scorer per task")
        for name in ("q_task", "q_fact"):
            declared = getattr(self, name)
            if declared is not None and declared.margin is None:
                raise ValueError(f"E1_STAGE reports {name} as a guardrail: set "
                                 f"[instruments.semantic.{name}] margin (the largest loss that is not flagged)")
        return self


class Instruments(UserFileModel):
    """The ``[instruments]`` table: one optional sub-table per registered instrument name."""

    voice: VoiceParams | None = None
    """``[instruments.voice]``: Burrows's Delta to the author's held-out text (character bigrams)."""
    memorization: MemorizationParams | None = None
    """``[instruments.memorization]``: verbatim runs from the training corpus, with a positive control."""
    damage: DamageParams | None = None
    """``[instruments.damage]``: ran-on and out-of-band answers."""
    gloss: GlossParams | None = None
    """``[instruments.gloss]``: the GLOSS battery gate on every arm."""
    semantic: SemanticParams | None = None
    """``[instruments.semantic]``: T_GPT semantic support and recoverability metrics."""

    def declared(self) -> tuple[str, ...]:
        return tuple(name for name in INSTRUMENT_NAMES if getattr(self, name) is not None)


ENDPOINTS: dict[str, tuple[str, ...]] = {
    "voice": ("delta_gap",),
    "memorization": ("hit_rate", "max"),
    "damage": DAMAGE_METRICS,
    "gloss": ("gate", "sigma_total"),
    "semantic": ("REC_GAIN", "ES_LOSS", "IRREV_OBS", "AGG_COVERAGE", "MINORITY_RECALL", RECURRENCE_ENDPOINT,
                 "D_sem", "H_sem", "P"),
}
"""Endpoints a comparison may name as ``primary = "<instrument>.<endpoint>"``."""

assert set(ENDPOINTS) == set(INSTRUMENT_NAMES), "every instrument declares its endpoints"


def endpoint_names() -> tuple[str, ...]:
    return tuple(f"{inst}.{ep}" for inst in INSTRUMENT_NAMES for ep in ENDPOINTS[inst])
