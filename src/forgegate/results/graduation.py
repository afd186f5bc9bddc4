"""``forgegate graduate --json``: the graduation's word, the lineage line it wrote, and the results it rests on.

Before it had a kind the command wrote a hand-built dict (``GraduationDecision.to_json`` plus the battery and live
results); the fields are that dict's, in its order, plus ``kind`` and ``schema_version``.
"""

from __future__ import annotations

from typing import Literal

from forgegate.core.verdict import Gate
from forgegate.results.base import Gated, ReasonModel, SchemaVersion
from forgegate.results.comparison import ComparisonResult
from forgegate.results.eval import EvalResult
from forgegate.results.lineage_record import AcceptedRegression


class GraduationResult(Gated):
    """A version's graduation: the rules' word, the lineage record's line, and the battery and live results."""

    gate: Gate
    """The graduation's word (``gate.graduation``): PASS graduates the version."""
    reasons: list[ReasonModel]
    """Every rule that decided it: battery, live test, signatures, loops, regressions."""
    kind: Literal["graduation"]
    """Always ``graduation``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    version: str
    """The version graduated (or not)."""
    graduated: bool
    """Whether the record says it graduated."""
    lineage_line: int
    """Line of the lineage file the record was appended at."""
    compared_to: str | None
    """The last graduated version it was paired with; null for the first."""
    regressions: list[str]
    """Regressions the comparison found."""
    accepted_regressions: list[AcceptedRegression]
    """Regressions the operator accepted (--accept-regression), with why."""
    comparison: ComparisonResult | None
    """The paired comparison with the last graduated version; null when there is none."""
    warnings: list[str]
    """What the operator should know that does not move the word."""
    battery: EvalResult
    """The GLOSS battery eval (always run, with --check-failure-modes)."""
    live: EvalResult | None
    """The live test; null when the battery did not PASS (GLOSS v2 runs it "After battery PASS")."""
