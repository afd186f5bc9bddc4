"""Names a plan may declare for its instruments: vocabulary the plan, the instruments and the results share, so it
 sits in core (instruments import no plan module)."""

from __future__ import annotations

from typing import Literal, get_args

DamageMetric = Literal["out_of_band", "ran_on"]
DAMAGE_METRICS: tuple[DamageMetric, ...] = get_args(DamageMetric)
"""The damage axis's rates: answers outside the word band, answers that ran on to the token cap."""

FloorRule = Literal["pairwise", "all-arms"]
"""Which seeds make the voice noise floor: the two compared arms' (pairwise) or every arm's."""

TiebreakAxis = Literal["memorization", "seed_spread"]
"""The axes a plan's tiebreak may name (lv-hemingway v2 § 2, "the axes that resolve"): memorisation identical to the
control's, then the tighter seed variance (the voice Delta's within-arm seed spread)."""
TIEBREAK_AXES: tuple[TiebreakAxis, ...] = get_args(TiebreakAxis)

VERDICT_FLOOR_RULE: FloorRule = "pairwise"
"""The floor a plan's voice verdict uses (lv-hemingway v2 § 4: "The pairwise number is the verdict; the all-arms
number is kept so the lv-bronte record stays comparable"): the other rule is printed as the sensitivity line only."""


def floor_rule_refusal(value: str) -> str | None:
    """Why a floor rule other than the pairwise one cannot decide a verdict (None for the pairwise rule).

    One message for every place a floor is chosen: a plan's ``[instruments.voice] floor`` and ``forgegate voice
    --floor`` (issue 36: the all-arms floor is refused as plans refuse it)."""
    if value == VERDICT_FLOOR_RULE:
        return None
    return (f"floor = '{value}' cannot decide: the {VERDICT_FLOOR_RULE} floor is the verdict (lv-hemingway v2 § 4: "
            "a candidate's verdict must not depend on which other arms happened to be generated); the all-arms "
            "floor is printed beside it as the sensitivity line")

SemanticField = Literal["FIELD_TOK", "FIELD_SEM", "FIELD_TRAJ", "FIELD_VIS"]
"""T_GPT v0.8.1's field types (``field_types``): what a semantic result measures. "FIELD_TOK != FIELD_SEM !=
FIELD_TRAJ != FIELD_VIS. Cross-level claims require an explicit measurement bridge." (``non_equivalence_rule``)."""
SEMANTIC_FIELDS: tuple[SemanticField, ...] = get_args(SemanticField)
