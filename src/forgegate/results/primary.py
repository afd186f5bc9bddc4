"""A plan comparison's primary endpoint number (``comparisons[*].primary_value``): semantic or GLOSS.

Built by ``pipeline.plan.score`` (``_primary_part``, from ``pipeline.plan.semantic.endpoint_value``). Which keys
a value carries depends on the endpoint (an across-task metric has ``n_tasks``, a per-condition one ``control``
and ``candidate``, a missing one a ``note``); the JSON keeps exactly the keys it was built with (``Sparse``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from forgegate.core.verdict import Gate
from forgegate.results.base import Estimate, Sparse, Strict


class MetricEntry(Estimate, Sparse):
    """One cell of the semantic library's tables: a value, its interval, and what it was computed over."""

    na_resamples: float | None = None
    """Share of resamples where the metric was not defined (REC_GAIN, IRREV_OBS)."""
    n_tasks: int | None = None
    """Tasks with a value (across-task cells)."""


class SemanticPrimaryValue(Sparse):
    """A semantic primary endpoint: the across-task value with its CI, or each arm's value, or why there is none."""

    endpoint: str
    """The T_GPT metric the comparison declared primary."""
    value: float | None = None
    """Candidate minus control (a pair metric or an aggregate difference); null: not computed."""
    ci: list[float] | None = None
    """Its percentile bootstrap interval."""
    n_tasks: int | None = None
    """Tasks the across-task value was computed over."""
    comparison: str | None = None
    """What the difference is of (recurrence and topology endpoints)."""
    note: str | None = None
    """Why there is no value."""
    control: MetricEntry | None = None
    """The control arm's value (a per-condition metric: D_sem, H_sem, P)."""
    candidate: MetricEntry | None = None
    """The candidate arm's value (a per-condition metric)."""
    pass_rule: str | None = None
    """The rule the value is held to; null: none (the semantic verdict decides)."""


class GlossArmValue(Strict):
    """One arm's GLOSS word and sigma_total."""

    gate: Gate
    """The arm's GLOSS word."""
    sigma_total: float | None
    """The arm's sigma_total; null when answers are missing."""


class GlossPrimaryValue(Sparse):
    """A GLOSS primary endpoint: each arm's GLOSS word and sigma_total."""

    endpoint: str
    """The GLOSS endpoint the comparison declared primary."""
    candidate: GlossArmValue
    """The candidate arm's GLOSS result."""
    control: GlossArmValue
    """The control arm's GLOSS result."""


PrimaryValue = SemanticPrimaryValue | GlossPrimaryValue
"""What ``primary_value`` holds; told apart by shape (a GLOSS arm's value has a ``gate``, a metric's does not)."""


@cache
def _adapter() -> TypeAdapter[PrimaryValue]:
    return TypeAdapter(PrimaryValue)


def primary_value_of(raw: Mapping[str, Any]) -> PrimaryValue:
    """The pipeline's primary endpoint block as its model (validated field by field)."""
    return _adapter().validate_python(raw)
