"""T_GPT v0.8.1's field types: every semantic result states the field it measures, and fields are not compared.

The spec: "FIELD_TOK != FIELD_SEM != FIELD_TRAJ != FIELD_VIS. Cross-level claims require an explicit
measurement bridge." Every table :func:`forgegate.semantic.compute_metrics` writes is over frozen cluster
identities (FIELD_SEM); a result over token probabilities would say FIELD_TOK. Comparing two results of
different fields is refused (:func:`field_problem`) unless one of their plans names a bridge between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forgegate.core.declared import SEMANTIC_FIELDS, SemanticField

FIELD_TYPES: dict[str, str] = {
    "FIELD_TOK": "conditional token-probability distribution when available",
    "FIELD_SEM": "empirical distribution over frozen semantic cluster identities",
    "FIELD_TRAJ": "set or graph of reasoning/agent trajectories with provenance",
    "FIELD_VIS": "configurations exposed by an interface or final aggregate",
}
"""The spec's ``field_types``, verbatim."""
assert tuple(FIELD_TYPES) == SEMANTIC_FIELDS
NON_EQUIVALENCE_RULE = ("FIELD_TOK != FIELD_SEM != FIELD_TRAJ != FIELD_VIS. Cross-level claims require an "
                        "explicit measurement bridge.")
"""The spec's ``non_equivalence_rule``, verbatim."""
TABLE_FIELD: SemanticField = "FIELD_SEM"
"""The field of every T_GPT metrics table: D_sem, H_sem, P, ES_LOSS, REC_GAIN, IRREV_OBS, AGG_COVERAGE and
MINORITY_RECALL are all computed from counts over frozen cluster identities (no token probability is read)."""


def bridged(left: str, right: str, bridges: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first declared bridge (``{"fields": [a, b], "how": ...}``) that links the two fields, either way."""
    for bridge in bridges:
        if set(bridge.get("fields") or ()) == {left, right}:
            return bridge
    return None


def field_problem(left: str, right: str, *, left_name: str = "left", right_name: str = "right",
                  bridges: Iterable[Mapping[str, Any]] = ()) -> str | None:
    """Why results measuring fields ``left`` and ``right`` may not be compared (different fields and no bridge
    among ``bridges``), or None.

    ``bridges`` are a plan's ``[[instruments.semantic.bridges]]`` (``semantic compare --plan``), never the
    ``bridges`` a result file carries: a line added to a JSON file is not a declared measurement bridge.
    (A result without ``field`` predates the label; every table forgegate wrote then was ``TABLE_FIELD``, the
    result model's default.)
    """
    if left == right:
        return None
    if bridged(left, right, bridges) is not None:
        return None
    return (f"{left_name} measures {left} ({FIELD_TYPES.get(left, '?')}) and {right_name} measures {right} "
            f"({FIELD_TYPES.get(right, '?')}): T_GPT v0.8.1 says \"{NON_EQUIVALENCE_RULE}\" Declare the bridge in "
            f"the plan ([[instruments.semantic.bridges]] fields = [\"{left}\", \"{right}\"], how = \"...\") and pass "
            "it as --plan, or compare results of one field")
