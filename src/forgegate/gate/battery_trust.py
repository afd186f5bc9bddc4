"""Whether the battery a version was scored with may still graduate it: GLOSS v2's follow-up to a false positive.

GLOSS v2, invariant 6: "If a model passes eval but fails live testing, the eval battery is broken and
must be updated before the next forge ... Fix the eval, not the graduation criteria." So once a
lineage records EVAL_FALSE_POSITIVE for a battery (by the sha256 of its bytes), that battery "does
not predict live behaviour": a later version scored with the same bytes is refused until the battery
changes (a new sha256) or the operator names the exception with a note, which the record keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate, Number, Reason

BATTERY_TRUST_RULE = "battery predicts live behaviour"
EXCEPTION_OPTION = "--accept-battery-exception"


class _Decision(Protocol):
    """A lineage record as this rule reads it (forgegate.results.LineageRecord has these fields)."""

    @property
    def version(self) -> str: ...

    @property
    def battery_sha256(self) -> str: ...

    @property
    def failure_modes(self) -> Sequence[str]: ...


def false_positive_versions(battery_sha256: str, records: Iterable[_Decision]) -> list[str]:
    """The versions whose decision recorded EVAL_FALSE_POSITIVE on this battery, in lineage order."""
    return [r.version for r in records
            if r.battery_sha256 == battery_sha256 and FailureMode.EVAL_FALSE_POSITIVE in r.failure_modes]


def battery_trust_reason(battery_sha256: str, records: Iterable[_Decision], exception_note: str | None) -> Reason:
    """PASS when no earlier decision found this battery to be a false positive, or when the operator named
    the exception (``exception_note``); FAIL otherwise, saying how to go on."""
    short = battery_sha256[:16]
    flagged = false_positive_versions(battery_sha256, records)
    numbers: dict[str, Number] = {"battery_sha256": battery_sha256, "false_positives": len(flagged),
                                  "false_positive_versions": ", ".join(flagged)}
    if not flagged:
        return Reason(BATTERY_TRUST_RULE, Gate.PASS,
                      f"battery {short}… has no recorded EVAL_FALSE_POSITIVE in this lineage", numbers)
    when = f"EVAL_FALSE_POSITIVE recorded for {', '.join(flagged)} on battery {short}…"
    if exception_note is not None and exception_note.strip():
        return Reason(BATTERY_TRUST_RULE, Gate.PASS, f"{when}; exception accepted: {exception_note.strip()}",
                      {**numbers, "exception": exception_note.strip()})
    return Reason(BATTERY_TRUST_RULE, Gate.FAIL,
                  f"{when}: this battery does not predict live behaviour (GLOSS v2: 'fix the eval, not the "
                  f"graduation criteria'); update the battery, or name the exception with "
                  f"{EXCEPTION_OPTION} \"why\"", numbers)
