"""Endpoint roles: T_GPT v0.8.1's role of each metric and which one an experiment declares primary."""

from __future__ import annotations

from forgegate.core.experiments import EXPERIMENTS, SPEC_PRIMARY, primary_endpoint

SPEC_ROLES: dict[str, str] = {
    "D_sem": "secondary descriptive",
    "H_sem": "secondary descriptive",
    "P": "guardrail",
    "ES_LOSS": "primary precursor",
    "REC_GAIN": "PRIMARY_ENDPOINT",
    "IRREV_OBS": "derived endpoint",
    "AGG_COVERAGE": "primary for aggregation/topology studies",
    "MINORITY_RECALL": "secondary for aggregation/topology studies",
}

_HOW = {
    "E1_STAGE": "reference = the earlier stage, contracted = the adjacent later stage (one table per adjacent "
                "stage pair); the Q_task/Q_fact guardrails are the plan's declared quality tables "
                "(semantic.quality, forgegate run only), flagged when the change loses more than their margin",
    "E4_R_META": "T_GPT v0.8.1 does not define the structural-recurrence rate with one of its metric names: the "
                 "declared metric stands for it in this table; the difference between the structural-critique "
                 "and style-control arms is taken between two tables (one per arm in the recovery role) and is "
                 "not computed here",
}


def primary_declaration(experiment: str | None, declared: str | None = None) -> dict[str, str | None]:
    """Where the primary endpoint comes from, for the JSON: T_GPT v0.8.1's words, the metric, the source."""
    endpoint = primary_endpoint(experiment, declared)
    if experiment is None:
        return {"experiment": None, "endpoint": None, "source": None, "spec": None, "how": None}
    source = "spec" if EXPERIMENTS[experiment] is not None else "plan declaration (T_GPT v0.8.1 names no single metric)"
    return {"experiment": experiment, "endpoint": endpoint, "source": source, "spec": SPEC_PRIMARY[experiment],
            "how": _HOW.get(experiment)}


def endpoint_labels(experiment: str | None, exploratory: bool,
                    declared: str | None = None) -> dict[str, dict[str, str]]:
    """Per metric: T_GPT v0.8.1's role and this run's label (primary / secondary (Holm) / exploratory)."""
    primary = primary_endpoint(experiment, declared)
    out: dict[str, dict[str, str]] = {}
    for name, role in SPEC_ROLES.items():
        if exploratory:
            label = "exploratory (N below the confirmatory minimum)"
        elif primary is None:
            label = "exploratory (no experiment declared a primary endpoint)"
        elif name == primary:
            label = "primary"
        elif name == "IRREV_OBS" and primary == "REC_GAIN":
            label = "derived from the primary endpoint"
        else:
            label = "secondary: differences Holm-adjusted within this family, otherwise exploratory"
        out[name] = {"spec_role": role, "label": label}
    return out
