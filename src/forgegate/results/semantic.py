"""T_GPT semantic metrics (``forgegate semantic metrics``; a plan run's ``semantic.metrics``).

The top level is typed field by field; the per-task and across-task tables (``tasks``,
``across_tasks``, ``sensitivity``, ``unfiltered``, ``effects``) are ``results.semantic_tables``'
models, keyed by the task, condition and aggregate names the data decides.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from forgegate.core.declared import SemanticField
from forgegate.results.base import SCHEMA_VERSION, Gated, Number, SchemaVersion, Strict
from forgegate.results.semantic_tables import AcrossTasks, Effect, Tables, TaskBlock

METRICS_SCHEMA = "T_GPT_METRICS_V0_8_1"
"""The semantic library's own table format name, written as ``schema`` beside ``schema_version``."""


class PrimaryDeclaration(Strict):
    experiment: str | None
    endpoint: str | None
    source: str | None
    spec: str | None
    how: str | None


class EndpointLabel(Strict):
    spec_role: str
    label: str


class RolesModel(Strict):
    reference: str
    contracted: str
    recovery: str


class BootstrapInfo(Strict):
    seed: int
    n_resamples: int
    method: str
    confidence_level: float
    library: str
    within_task: str
    across_tasks: str
    aggregates: str


class UnfilteredTables(Strict):
    tasks: dict[str, TaskBlock]
    across_tasks: AcrossTasks
    sensitivity: dict[str, Tables]


class HolmTest(Strict):
    unit: str
    endpoint: str
    comparison: str
    p_boot: float | None
    p_holm: float | None


class HolmFamily(Strict):
    method: str
    library: str
    family: str
    p_value: str
    tests: list[HolmTest]


class MetricControl(Strict):
    name: str
    expected: Number
    observed: Number
    passed: bool


class FileInputs(Strict):
    """``semantic metrics``: the files the table was computed from."""

    samples: str
    relevance: str
    aggregates: str | None
    store: str | None = None
    """The run store E3's token budgets were summed from (``--store``); null: none given."""
    budget_source: str | None = None
    """Where E3's token budgets came from: the run store, or the aggregates file's self-reported ``total_tokens``
    (then the table's exploratory reasons say so); null: no E3 budget was checked."""


class RelevanceAdjudication(Strict):
    """Who made R(c), when, and how well the two primary annotators agreed (from the adjudicated record)."""

    adjudicated: bool
    """Always true: the plan's relevance file is an adjudicated record (``forgegate semantic relevance``)."""
    annotators: list[str]
    """The two primary annotators (neither is the plan's author)."""
    plan_author: str
    """The plan's author, refused as a primary annotator (T_GPT: author_primary_annotation_forbidden)."""
    adjudicator: str
    """Who decided the clusters the annotators disagreed on."""
    adjudicated_at: str
    """When the record was written (ISO 8601)."""
    observed_agreement: float
    """Share of clusters both annotators labelled alike."""
    cohens_kappa: float | None
    """Cohen's kappa between the two annotators; null when chance agreement is 1."""
    disagreements: int
    """How many clusters the adjudicator decided."""
    codebook_hash: str | None
    """Content hash of the frozen codebook the sheet was made from (null: not recorded)."""


class PlanRelevance(Strict):
    """The relevance R(c) a plan run used: its file, and the adjudication's provenance when it is a record."""

    path: str | None
    """The relevance file; null: none declared (every cluster counted as relevant)."""
    clusters: int | None = None
    """How many clusters the file labels."""
    note: str | None = None
    """Why there is no file, when there is none."""
    adjudication: RelevanceAdjudication | None = None
    """Annotators, adjudicator, when and agreement; null: a bare ``{cluster, relevant}`` file or none (a
    confirmatory plan is then INCOMPLETE)."""


class PlanInputs(Strict):
    """A plan run: the assignments written beside the store, and the relevance used."""

    assignments: str
    relevance: PlanRelevance


class BridgeModel(Strict):
    """A plan's measurement bridge between two T_GPT fields."""

    fields: tuple[SemanticField, SemanticField]
    """The two fields it links."""
    how: str
    """How a measurement in one field is read in the other."""


class SemanticMetricsBody(Gated):
    """The semantic library's metrics table, as a plan run nests it and ``semantic metrics`` writes it."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True, use_attribute_docstrings=True)

    metrics_schema: Literal["T_GPT_METRICS_V0_8_1"] = Field(alias="schema")
    field: SemanticField = "FIELD_SEM"
    """The T_GPT field this table measures: FIELD_SEM (empirical distribution over frozen semantic cluster
    identities). Results of different fields are not compared without a bridge (``non_equivalence_rule``)."""
    bridges: list[BridgeModel] = Field(default_factory=list)
    """Measurement bridges to other fields the plan declared (``semantic metrics`` from files: none)."""
    mode: Literal["exploratory", "confirmatory"]
    exploratory_reasons: list[str]
    experiment: str | None
    primary_endpoint: PrimaryDeclaration
    endpoints: dict[str, EndpointLabel]
    roles: RolesModel
    tau_support: float
    minimum_count: int
    sensitivity_taus: list[float]
    bootstrap: BootstrapInfo
    tasks: dict[str, TaskBlock]
    across_tasks: AcrossTasks
    sensitivity: dict[str, Tables]
    """Support threshold tau -> the tables at that tau."""
    unfiltered: UnfilteredTables
    effects: dict[str, dict[str, dict[str, Effect]]]
    """Unit (a task or ``across_tasks``) -> comparison or metric -> endpoint or aggregate -> its effect."""
    holm: HolmFamily
    controls: list[MetricControl]
    inputs: FileInputs | PlanInputs


class PlanSemanticMetrics(SemanticMetricsBody):
    """A plan run's table also says which experiment the plan declared (None: none)."""

    declared_experiment: str | None


class SemanticMetricsResult(SemanticMetricsBody):
    """``forgegate semantic metrics --json``."""

    kind: Literal["semantic"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, metrics: dict[str, Any]) -> SemanticMetricsResult:
        """The library's table (``compute_metrics`` / ``metrics_from_files``) as the versioned result."""
        return cls.model_validate({**metrics, "kind": "semantic", "schema_version": SCHEMA_VERSION})
