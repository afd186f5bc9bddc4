"""E4_R_META's declaration in a plan: the two arms compared and the filled blinded recurrence sheet.

T_GPT v0.8.1: "E4_R_META": "difference in blinded structural-recurrence rate between structural-critique
and style-control arms". ``forgegate run`` writes the blinded sheet (every generation of the two arms,
shuffled, no arm shown) beside the run store; a human marks each answer ``recurs`` 1 or 0 and saves it
where ``sheet`` says. The sheet cannot exist before the run, so it is read when scoring, not locked.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from forgegate.userfile import UserFileModel


class RecurrenceParams(UserFileModel):
    """``[instruments.semantic.recurrence]``: E4_R_META's arms and its blinded annotation sheet."""

    structural: str = Field(min_length=1)
    """The structural-critique arm (its rate is the minuend)."""
    style_control: str = Field(min_length=1)
    """The style-control arm."""
    sheet: str = Field(min_length=1)
    """The filled blinded sheet (path, relative to the plan; ``recurs`` 1/0 per row): missing or partly blank,
    the semantic verdict is INCOMPLETE."""

    @model_validator(mode="after")
    def _two_arms(self) -> RecurrenceParams:
        if self.structural == self.style_control:
            raise ValueError("structural and style_control must name two different arms")
        return self
