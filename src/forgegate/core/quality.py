"""The quality scorers a plan may name for T_GPT's Q_task and Q_fact guardrails: one registry, filled by name.

T_GPT v0.8.1's ``quality_guardrails``: "Q_task: Task-success measure defined per task before
confirmation"; "Q_fact: Factuality measure used only on tasks with externally checkable factual
claims". A plan declares, per task, a scorer by name: the declarations are ``battery.quality_rules``' models (the plan
schema validates with them), the scorers ``checks.quality``'s, registered there (the pipeline imports that
module; no layer loads another through a name).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, get_args

from pydantic import BaseModel

from forgegate.core.records import Completion

QualityMeasure = Literal["Q_task", "Q_fact"]
"""T_GPT v0.8.1's two quality guardrails."""
QUALITY_MEASURES: tuple[QualityMeasure, ...] = get_args(QualityMeasure)
"""T_GPT v0.8.1's two quality guardrails, in the order they are reported."""
SPEC_QUALITY: dict[str, str] = {
    "Q_task": "Task-success measure defined per task before confirmation.",
    "Q_fact": "Factuality measure used only on tasks with externally checkable factual claims.",
}
"""T_GPT v0.8.1's ``quality_guardrails``, word for word."""


class QualityScorer(Protocol):
    """One way to score an answer for Q_task or Q_fact: 1.0 succeeds, 0.0 fails (a human may give a share)."""

    @property
    def declaration(self) -> type[BaseModel]:
        """The strict model of a task's declaration under this scorer (its ``scorer`` field included)."""
        ...

    @property
    def human(self) -> bool:
        """True: scored by a person from a filled review sheet, never from the text."""
        ...

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        """The answer's score in [0, 1] under the task's declaration (never called for a human scorer)."""
        ...


