"""The T_GPT experiments a plan may declare and each one's primary endpoint (declared before any number exists)."""

from __future__ import annotations

from typing import Literal, get_args

from forgegate.errors import UsageError

Experiment = Literal["E1_STAGE", "E2_RECOVERY", "E3_TOPOLOGY", "E4_R_META"]
"""The one list of experiments (T_GPT v0.8.1's); the tables below say what each one's primary endpoint is."""
EXPERIMENT_NAMES: tuple[str, ...] = get_args(Experiment)

SPEC_PRIMARY: dict[str, str] = {
    "E1_STAGE": "change in ES_LOSS/REC_GAIN across adjacent post-training stages with Q_task/Q_fact guardrails",
    "E2_RECOVERY": "REC_GAIN",
    "E3_TOPOLOGY": "AGG_COVERAGE at matched total-token budget",
    "E4_R_META": "difference in blinded structural-recurrence rate between structural-critique and "
                 "style-control arms",
}
"""T_GPT v0.8.1's ``primary_endpoint_by_experiment``, word for word."""

EXPERIMENTS: dict[str, str | None] = {
    "E1_STAGE": None,
    "E2_RECOVERY": "REC_GAIN",
    "E3_TOPOLOGY": "AGG_COVERAGE",
    "E4_R_META": None,
}
"""The metric T_GPT v0.8.1 names as an experiment's primary endpoint (None: T_GPT v0.8.1 names no single metric,
so the plan must declare one of ``DECLARABLE``; there is no default)."""

RECURRENCE_ENDPOINT = "STRUCTURAL_RECURRENCE"
"""E4_R_META's endpoint as T_GPT v0.8.1 words it: the difference in blinded structural-recurrence rate between the
structural-critique and style-control arms, from a blinded annotation sheet (``[instruments.semantic.recurrence]``);
not a metric of the semantic table."""

DECLARABLE: dict[str, tuple[str, ...]] = {
    # T_GPT v0.8.1's words name these two; which one is primary is the plan's pre-registered choice
    "E1_STAGE": ("ES_LOSS", "REC_GAIN"),
    # T_GPT v0.8.1's 'structural-recurrence rate' is none of its metric names: the plan picks which one measures it
    # (one with a single across-task value; D_sem, H_sem and P are per condition)
    # RECURRENCE_ENDPOINT is the spec's own endpoint; the metric names remain for plans that declared a proxy
    "E4_R_META": (RECURRENCE_ENDPOINT, "REC_GAIN", "IRREV_OBS", "ES_LOSS", "AGG_COVERAGE", "MINORITY_RECALL"),
}

assert set(SPEC_PRIMARY) == set(EXPERIMENTS) == set(EXPERIMENT_NAMES), "every experiment has its primary endpoint"
assert {e for e, named in EXPERIMENTS.items() if named is None} == set(DECLARABLE), "a choice where the spec names none"


def primary_endpoint(experiment: str | None, declared: str | None = None) -> str | None:
    """The experiment's one primary endpoint: T_GPT v0.8.1's metric, or the plan's declaration where T_GPT v0.8.1
    names none. A missing, unknown or conflicting declaration is a UsageError (no silent default)."""
    if experiment is None:
        if declared is not None:
            raise UsageError(f"primary endpoint {declared!r} is declared without an experiment: name the experiment")
        return None
    if experiment not in EXPERIMENTS:
        raise UsageError(f"unknown experiment {experiment!r}: choose one of {', '.join(EXPERIMENT_NAMES)}")
    named = EXPERIMENTS[experiment]
    if named is not None:
        if declared is not None and declared != named:
            raise UsageError(f"{experiment}'s primary endpoint is {named} "
                             f"(T_GPT v0.8.1: {SPEC_PRIMARY[experiment]!r}); a declared {declared!r} contradicts it")
        return named
    choices = DECLARABLE[experiment]
    if declared is None:
        raise UsageError(f"{experiment}: T_GPT v0.8.1's primary endpoint is {SPEC_PRIMARY[experiment]!r}, which names "
                         f"no single metric: declare primary_endpoint as one of {', '.join(choices)}")
    if declared not in choices:
        raise UsageError(f"{experiment}: primary_endpoint {declared!r} is not one of {', '.join(choices)} "
                         f"(T_GPT v0.8.1: {SPEC_PRIMARY[experiment]!r})")
    return declared
