"""Names a plan may declare for its instruments: vocabulary the plan, the instruments and the results share, so it
 sits in core (instruments import no plan module)."""

from __future__ import annotations

from typing import Literal, get_args

DamageMetric = Literal["out_of_band", "ran_on"]
DAMAGE_METRICS: tuple[DamageMetric, ...] = get_args(DamageMetric)
"""The damage axis's rates: answers outside the word band, answers that ran on to the token cap."""

FloorRule = Literal["pairwise", "all-arms"]
"""Which seeds make the voice noise floor: the two compared arms' (pairwise) or every arm's."""
