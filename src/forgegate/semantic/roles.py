"""Endpoint roles: the spec's role of each metric and which one an experiment declares primary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forgegate.errors import UsageError
from forgegate.gate.verdict import Gate, Reason

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

EXPERIMENTS: dict[str, str | None] = {
    "E1_STAGE": None,
    "E2_RECOVERY": "REC_GAIN",
    "E3_TOPOLOGY": "AGG_COVERAGE",
    "E4_R_META": None,
}
"""Primary endpoint per experiment that this command can compute (None: not a single-table metric)."""

_NOT_HERE = {
    "E1_STAGE": "its primary endpoint is the change in ES_LOSS/REC_GAIN across adjacent post-training stages: "
                "run this command once per stage pair and compare the stage tables",
    "E4_R_META": "its primary endpoint is a blinded structural-recurrence rate, not a semantic support metric",
}


def primary_endpoint(experiment: str | None) -> str | None:
    """The declared primary endpoint, or a UsageError for an experiment this table cannot carry."""
    if experiment is None:
        return None
    if experiment not in EXPERIMENTS:
        raise UsageError(f"unknown experiment {experiment!r}: choose one of {', '.join(EXPERIMENTS)}")
    endpoint = EXPERIMENTS[experiment]
    if endpoint is None:
        raise UsageError(f"{experiment} cannot be scored by `semantic metrics`: {_NOT_HERE[experiment]}")
    return endpoint


def endpoint_labels(experiment: str | None, exploratory: bool) -> dict[str, dict[str, str]]:
    """Per metric: the spec's role and this run's label (primary / secondary (Holm) / exploratory)."""
    primary = primary_endpoint(experiment)
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


NA_WHY = ("NA across tasks (REC_GAIN and IRREV_OBS are NA where ES_LOSS is 0 or NA; every metric is NA "
          "where S_A^+ is empty)")


def primary_na(primary: str, value: Mapping[str, Any]) -> Reason | None:
    """INCOMPLETE when a primary endpoint is NA or was not computed (it decides nothing); None when it has a number.

    The one rule for both paths: ``semantic metrics`` on its declared experiment's primary endpoint and
    ``forgegate run`` on a comparison's primary. ``value`` is ``{"value", "ci", ...}``, or
    ``{"control", "candidate"}`` (per-condition metrics), or carries a ``note`` saying why there is none.
    """
    numbers = [value.get("value")] if "value" in value else [value.get("control"), value.get("candidate")]
    if value.get("note") or any(n is None or (isinstance(n, dict) and n.get("value") is None) for n in numbers):
        return Reason(f"primary {primary}", Gate.INCOMPLETE, f"{primary}: {value.get('note') or NA_WHY}")
    return None
