"""One line of a lineage file (``forgegate graduate --lineage``): a graduation decision, never rewritten.

``lineage_format`` (1) is kept beside ``schema_version`` for files written before results
were versioned; lines without ``schema_version`` are upgraded by ``forgegate.results.legacy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from forgegate.core.verdict import Gate
from forgegate.results.base import ReasonModel, SchemaVersion, Strict


class _Frozen(Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class RecordedItem(_Frozen):
    """An item's score as the record keeps it: enough to pair it with a later run."""

    id: str
    category: str
    seed: int | None
    score: float | None
    """None when the request errored (finish "error"): never a zero, never a pass."""
    passed: bool | None
    finish: str
    failure_modes: list[str] = Field(default_factory=list)


class AcceptedRegression(_Frozen):
    name: str
    note: str


class LineageRecord(_Frozen):
    """One graduation decision (graduated or not)."""

    kind: Literal["lineage_record"]
    schema_version: SchemaVersion
    lineage_format: Literal[1]
    version: str = Field(min_length=1)
    date: datetime
    model: str | None
    model_digest: str | None
    run_id: str | None
    live_run_id: str | None
    live_battery_sha256: str | None = None
    """The sha256 of the live test's battery (None: not run, or a record written before it was kept)."""
    live_battery_declared: str | None = None
    """The operator's declaration when the live test was not GLOSS v2's own 10 tasks (``--declare-live-battery``)."""
    battery_sha256: str
    gate_config_name: str
    gate_config_sha256: str
    category_scores: dict[str, float | None]
    sigma_total: float | None
    battery_gate: Gate
    live_gate: Gate | None
    verdict: Gate
    graduated: bool
    reasons: list[ReasonModel]
    failure_modes: list[str]
    failure_mode_signatures: dict[str, bool | None] | None = None
    """The v9 failure-mode signatures graduation judged (``checks.signatures.signatures_present``): present,
    absent or undecided; None in records written before they were kept."""
    regressions: list[str]
    accepted_regressions: list[AcceptedRegression]
    compared_to: str | None
    """The graduated version this one was compared with (None: no comparable graduated version)."""
    comparable_to_previous: bool | None
    """Same battery and gate config as the record before it (None for the first record)."""
    note: str | None
    forgegate_version: str
    items: list[RecordedItem]
    pass_rates: dict[str, float] | None = None
    """Item id -> passes / K when the battery ran K > 1 samples per item (issue 47), so a later comparison pairs
    rates; None with one sample (an added optional field)."""

    @model_validator(mode="after")
    def _graduated_means_pass(self) -> LineageRecord:
        if self.graduated != (self.verdict == Gate.PASS):
            raise ValueError(f"graduated={self.graduated} contradicts verdict {self.verdict.value}")
        return self

    def comparable_with(self, other: LineageRecord) -> bool:
        return (self.battery_sha256 == other.battery_sha256
                and self.gate_config_sha256 == other.gate_config_sha256)
