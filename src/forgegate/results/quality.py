"""T_GPT's Q_task / Q_fact guardrail tables in a plan run's semantic result (``semantic.quality``).

Per task and arm, and across tasks per arm, each cell is a value with its CI (``QualityCell``,
``QualityAcross``) keyed by the plan's task ids and arm names; the stage change and what could not be
scored are typed too.
"""

from __future__ import annotations

from forgegate.results.base import Estimate, Strict


class QualityCell(Estimate):
    """One task and arm: the mean score of the arm's answers with its CI."""

    n: int
    """Answers scored."""


class QualityAcross(Estimate):
    """One arm across tasks: the mean of the per-task values, tasks resampled."""

    n_tasks: int
    """Tasks with a value."""


class QualityChange(Strict):
    """The stage change: the contracted arm's measure minus the reference arm's, across tasks."""

    reference: str
    """The reference (earlier / wider) arm."""
    contracted: str
    """The contracted (later) arm."""
    n_tasks: int
    """Tasks scored in both arms."""
    value: float | None
    """Mean over those tasks of contracted minus reference (None: no task scored in both)."""
    ci: list[float] | None
    """Percentile bootstrap CI of ``value`` (tasks resampled; one task: its answers resampled)."""
    loss: float | None
    """``-value``: how much of the measure the change lost (the guardrail compares it with the margin)."""
    bootstrap_unit: str | None = None
    """What the CI's bootstrap resampled."""
    note: str | None = None
    """Why there is no value."""


class QualityMissing(Strict):
    """A declared task the measure could not score yet (a human-review sheet not written or not filled)."""

    task: str
    """The task id."""
    why: str
    """What is missing."""
    command: str
    """The command that writes the review sheet."""


class QualityTable(Strict):
    """One measure (Q_task or Q_fact): its declaration, per-arm values with CIs, the stage change."""

    measure: str
    """``Q_task`` or ``Q_fact``."""
    spec: str
    """T_GPT v0.8.1's definition, word for word."""
    scorers: dict[str, str]
    """Task id -> the scorer the plan declared for it."""
    margin: float | None
    """The declared guardrail margin (None: reported, not a guardrail)."""
    tasks: dict[str, dict[str, QualityCell]]
    """Task -> arm -> the mean score of the arm's answers with its CI."""
    across_tasks: dict[str, QualityAcross]
    """Arm -> ``{"value", "ci", "n_tasks"}``: the mean of the per-task values, tasks resampled."""
    change: QualityChange
    """Reference -> contracted, the number the guardrail reads."""
    missing: list[QualityMissing]
    """Declared tasks with no score yet (the gate makes the result INCOMPLETE)."""
    sheets: dict[str, str | None]
    """Review sheets read, as the plan names them -> sha256 (None: not there)."""
