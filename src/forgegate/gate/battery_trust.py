"""Whether the battery a version was scored with may still graduate it: GLOSS v2's follow-up to a false positive.

GLOSS v2, invariant 6: "If a model passes eval but fails live testing, the eval battery is broken and
must be updated before the next forge ... Fix the eval, not the graduation criteria." So once a
lineage records EVAL_FALSE_POSITIVE for a battery (by the sha256 of its bytes), that battery is *marked*:
no flag graduates a version on it. Another battery clears the mark only when it has been shown to FAIL
each checkpoint that slipped through (an eval run in the store, or a lineage record, of that battery on the same
weights, by digest, with gate FAIL; a model's name is never the evidence); a one-byte edit that catches nothing
clears nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate, Number, Reason

BATTERY_TRUST_RULE = "battery predicts live behaviour"


class _Decision(Protocol):
    """A lineage record as this rule reads it (forgegate.results.LineageRecord has these fields)."""

    @property
    def version(self) -> str: ...

    @property
    def battery_sha256(self) -> str: ...

    @property
    def failure_modes(self) -> Sequence[str]: ...

    @property
    def model(self) -> str | None: ...

    @property
    def model_digest(self) -> str | None: ...

    @property
    def battery_gate(self) -> Gate: ...


@dataclass(frozen=True)
class Slipped:
    """A checkpoint that passed a battery and failed its live test: what a replacement battery must FAIL."""

    version: str
    battery_sha256: str
    model: str | None
    model_digest: str | None

    def same_model(self, record: _Decision) -> bool:
        """Whether ``record`` ran these very weights: both digests known and equal. A model's name is a label
        anyone can serve (issue 46: a stub server under the slipped checkpoint's name "caught" it), so it is
        never the evidence: a record without a digest, or a slipped checkpoint without one, shows nothing."""
        return bool(self.model_digest) and self.model_digest == record.model_digest


def false_positive_versions(battery_sha256: str, records: Iterable[_Decision]) -> list[str]:
    """The versions whose decision recorded EVAL_FALSE_POSITIVE on this battery, in lineage order."""
    return [r.version for r in records
            if r.battery_sha256 == battery_sha256 and FailureMode.EVAL_FALSE_POSITIVE in r.failure_modes]


def slipped_through(records: Iterable[_Decision]) -> list[Slipped]:
    """Every checkpoint the lineage records as EVAL_FALSE_POSITIVE, oldest first."""
    return [Slipped(r.version, r.battery_sha256, r.model, r.model_digest) for r in records
            if FailureMode.EVAL_FALSE_POSITIVE in r.failure_modes]


def caught_by(battery_sha256: str, slipped: Slipped, records: Iterable[_Decision]) -> bool:
    """Whether ``records`` (the lineage's decisions and the store's FAILed eval runs) hold a run of this battery on the
    slipped checkpoint's model that FAILed."""
    return any(r.battery_sha256 == battery_sha256 and slipped.same_model(r) and r.battery_gate == Gate.FAIL
               for r in records)


def recheck_command(slipped: Slipped, battery: str = "NEW_BATTERY.jsonl") -> str:
    """What shows whether a replacement battery FAILs a checkpoint that slipped through: the command whose run (kept
    in the store) does, or why none can (the checkpoint's record holds no digest)."""
    model = slipped.model or "MODEL"
    if not slipped.model_digest:
        return (f"no run can show it ran {slipped.version}'s weights: its record holds no model digest (its backend "
                "reported none), and a model's name is not evidence; a replaced battery is trusted in a new lineage "
                "file, which starts without this mark")
    return (f"run `forgegate eval --model {model} --battery {battery}` (on {slipped.version}'s weights, digest "
            f"{slipped.model_digest}; same store)")


def battery_trust_reason(battery_sha256: str, records: Iterable[_Decision]) -> Reason:
    """PASS when the lineage marks no battery, or this battery is not marked and FAILed every slipped checkpoint;
    FAIL otherwise, saying which command shows the replacement catches what slipped through."""
    history = list(records)
    short = battery_sha256[:16]
    flagged = false_positive_versions(battery_sha256, history)
    slipped = slipped_through(history)
    numbers: dict[str, Number] = {"battery_sha256": battery_sha256, "false_positives": len(flagged),
                                  "false_positive_versions": ", ".join(flagged)}
    if flagged:
        return Reason(BATTERY_TRUST_RULE, Gate.FAIL,
                      f"EVAL_FALSE_POSITIVE recorded for {', '.join(flagged)} on battery {short}…: this battery does "
                      "not predict live behaviour (GLOSS v2: 'the eval battery is broken and must be updated before "
                      "the next forge ... Fix the eval, not the graduation criteria'); no flag graduates on it: "
                      "replace it with a battery that FAILs the checkpoint that slipped through", numbers)
    if not slipped:
        return Reason(BATTERY_TRUST_RULE, Gate.PASS,
                      f"battery {short}… has no recorded EVAL_FALSE_POSITIVE in this lineage", numbers)
    missing = [s for s in slipped if not caught_by(battery_sha256, s, history)]
    numbers["slipped_versions"] = ", ".join(s.version for s in slipped)
    if missing:
        return Reason(BATTERY_TRUST_RULE, Gate.FAIL,
                      f"battery {short}… replaces a battery marked EVAL_FALSE_POSITIVE, and clears the mark only "
                      f"when it FAILs the checkpoint that slipped through; no FAIL of it on "
                      f"{', '.join(s.version for s in missing)} is in the lineage or the store: "
                      f"{recheck_command(missing[0])}",
                      {**numbers, "not_caught": ", ".join(s.version for s in missing)})
    return Reason(BATTERY_TRUST_RULE, Gate.PASS,
                  f"battery {short}… FAILs every checkpoint that slipped through "
                  f"({', '.join(s.version for s in slipped)}): it replaces the marked battery", numbers)
