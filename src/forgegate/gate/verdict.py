"""Verdicts: a gate word and every reason that decided it; exit codes of the contract."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Gate(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    HOLD = "HOLD"
    INCOMPLETE = "INCOMPLETE"
    INVALID = "INVALID"

    @property
    def exit_code(self) -> int:
        """design.md: 0 PASS, 1 FAIL (HOLD is not a pass), 3 INCOMPLETE, 4 INVALID."""
        return {"PASS": 0, "FAIL": 1, "HOLD": 1, "INCOMPLETE": 3, "INVALID": 4}[self.value]


EXIT_BAD_INPUT = 2


@dataclass(frozen=True)
class Reason:
    """One rule that contributed to a verdict, with its numbers."""

    rule: str
    outcome: Gate
    detail: str


@dataclass(frozen=True)
class Verdict:
    gate: Gate
    reasons: tuple[Reason, ...]

    @staticmethod
    def combine(reasons: list[Reason]) -> Verdict:
        """INVALID beats INCOMPLETE beats FAIL beats HOLD beats PASS; no reasons is INCOMPLETE."""
        if not reasons:
            return Verdict(Gate.INCOMPLETE, (Reason("no-rules", Gate.INCOMPLETE, "no rule was evaluated"),))
        order = [Gate.INVALID, Gate.INCOMPLETE, Gate.FAIL, Gate.HOLD, Gate.PASS]
        worst = min((r.outcome for r in reasons), key=order.index)
        return Verdict(worst, tuple(reasons))

    def to_json(self) -> dict[str, object]:
        return {
            "gate": self.gate.value,
            "reasons": [{"rule": r.rule, "outcome": r.outcome.value, "detail": r.detail} for r in self.reasons],
        }
