"""T_GPT semantic metrics (``forgegate semantic metrics``; a plan run's ``semantic.metrics``).

The top level is typed field by field. The per-task and across-task tables (``tasks``,
``across_tasks``, ``sensitivity``, ``unfiltered``, ``effects``) are keyed by task,
condition pair and metric names that the data decides, each cell a value with its CI or
an NA note: they are kept as JSON objects (``dict[str, Any]``) and read by the renderer.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from forgegate.results.base import SCHEMA_VERSION, Gated, Number, SchemaVersion, Strict

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
    tasks: dict[str, Any]
    across_tasks: dict[str, Any]
    sensitivity: dict[str, Any]


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


class PlanInputs(Strict):
    """A plan run: the assignments written beside the store, and the relevance used."""

    assignments: str
    relevance: dict[str, Any]


class SemanticMetricsBody(Gated):
    """The semantic library's metrics table, as a plan run nests it and ``semantic metrics`` writes it."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True, use_attribute_docstrings=True)

    metrics_schema: Literal["T_GPT_METRICS_V0_8_1"] = Field(alias="schema")
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
    tasks: dict[str, Any]
    across_tasks: dict[str, Any]
    sensitivity: dict[str, Any]
    unfiltered: UnfilteredTables
    effects: dict[str, Any]
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
