"""``[instruments.semantic.order]``: where a confirmatory experiment stands in T_GPT's E1 -> E2 -> E3 -> E4.

T_GPT v0.8.1's ``primary_experiment_order`` is E1_STAGE, E2_RECOVERY, E3_TOPOLOGY, E4_R_META (the order of
``core.experiments.EXPERIMENT_NAMES``). A later experiment's confirmatory run refuses while an earlier one of the
same study is unconfirmed, unless the plan says why; ``pipeline.plan.confirmatory`` checks it.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from forgegate.core.experiments import Experiment
from forgegate.userfile import UserFileModel


class ExperimentOrder(UserFileModel):
    """The study this experiment belongs to, and each earlier experiment's confirmation (or why there is none)."""

    study: str = Field(min_length=1)
    """The study's name: the earlier experiments' confirmations belong to it."""
    confirmed: dict[Experiment, str] = Field(default_factory=dict)
    """Earlier experiment -> its confirmatory ``forgegate run --json`` result (path, relative to the plan; locked)."""
    unconfirmed_because: str | None = Field(default=None, min_length=1)
    """Why this experiment is confirmed while an earlier one of the study is not (the plan's own words, printed)."""

    @model_validator(mode="after")
    def _something_said(self) -> ExperimentOrder:
        if not self.confirmed and self.unconfirmed_because is None:
            raise ValueError("name the earlier experiments' confirmatory results in 'confirmed', or say in "
                             "'unconfirmed_because' why this one is confirmed before them")
        return self
