"""A paired regression check between two eval runs (``forgegate compare --json``; graduation's comparison)."""

from __future__ import annotations

from typing import Literal

from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, SchemaVersion, Strict


class BootstrapRef(Strict):
    seed: int
    n_resamples: int
    unit: str
    confidence_level: float


class McNemarModel(Strict):
    both_pass: int
    lost: int
    gained: int
    both_fail: int
    p: float


class CategoryComparisonModel(Strict):
    """One category (or ``overall``): both scores on the paired samples, the difference, the tests."""

    category: str
    score_old: float | None
    score_new: float | None
    difference: float | None
    ci95: tuple[float, float] | None
    ci_method: str
    n_items: int
    n_pairs: int
    n_errored_pairs: int
    mcnemar: McNemarModel | None
    p_holm: float | None
    call: Literal["regressed", "improved", "unchanged", "insufficient"]


class RegressionModel(Strict):
    name: str
    kind: Literal["category", "overall", "failure_mode"]
    detail: str


class Unpaired(Strict):
    old_only: list[str]
    new_only: list[str]


class RunSide(Strict):
    label: str
    run_id: str | None
    model: str | None
    gate: Gate
    sigma_total: float | None


class ComparisonResult(Gated):
    kind: Literal["comparison"]
    schema_version: SchemaVersion
    old: str
    new: str
    battery_sha256: str
    gate_config: str
    """Gate config name and the first 12 hex digits of its sha256."""
    bootstrap: BootstrapRef
    mcnemar_clustered: bool
    categories: list[CategoryComparisonModel]
    overall: CategoryComparisonModel
    regressions: list[RegressionModel]
    new_failure_modes: dict[str, list[str]]
    resolved_failure_modes: list[str]
    unpaired: Unpaired
    errored_pairs: list[str]
    runs: dict[Literal["old", "new"], RunSide]
    paired_test: str | None = None
    """Which paired test decided (issue 47): on (item, seed) scores with McNemar, or, when both runs have K > 1
    samples per item, on per-item pass rates. None in results written before it (an added optional field)."""
