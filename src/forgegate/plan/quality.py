"""A plan's Q_task / Q_fact declarations: per task, a scorer by name (``QUALITY_RULES``) and the guardrail margin.

``[instruments.semantic.q_task]`` (and ``q_fact``) is written before confirmation: T_GPT v0.8.1's
Q_task is a "task-success measure defined per task before confirmation", so the declaration is part
of the locked plan. Each task's table is validated against its scorer's own strict model.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, ValidationError

from forgegate.battery.quality_rules import QUALITY_RULES
from forgegate.errors import not_one_of
from forgegate.userfile import UserFileModel


def _task_declaration(value: Any) -> BaseModel:
    """One task's table, validated by the model of the scorer it names (errors name the field)."""
    if not isinstance(value, dict):
        raise ValueError("each task is a table: { scorer = \"<name>\", ... }")
    name = value.get("scorer")
    if not isinstance(name, str):
        raise ValueError(f"'scorer' is required: one of {', '.join(sorted(QUALITY_RULES))}")
    rule = QUALITY_RULES.get(name)
    if rule is None:
        raise ValueError(not_one_of(name, tuple(sorted(QUALITY_RULES))))
    try:
        return rule.model_validate(value, strict=True)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"])
            allowed = ", ".join(rule.model_fields)
            extra = f" (scorer '{name}' takes: {allowed})" if err["type"] == "extra_forbidden" else ""
            problems.append(f"{field + ': ' if field else ''}{err['msg']}{extra}")
        raise ValueError("; ".join(problems)) from None


TaskDeclaration = Annotated[Any, AfterValidator(_task_declaration)]


class QualityDeclaration(UserFileModel):
    """``[instruments.semantic.q_task]`` / ``[instruments.semantic.q_fact]``: per task, how an answer is scored."""

    margin: float | None = Field(default=None, ge=0, le=1)
    """The guardrail: a stage change (reference -> contracted) that loses more than this much of the measure
    (the across-task mean, on its 0-1 scale) is flagged. Required for E1_STAGE's Q_task."""
    tasks: dict[str, TaskDeclaration] = Field(min_length=1)
    """Task id (a fixture item's id) -> ``{ scorer = "<name>", ... }``; the scorer's fields follow it."""

    def scorer_names(self) -> dict[str, str]:
        return {task: str(decl.scorer) for task, decl in self.tasks.items()}
