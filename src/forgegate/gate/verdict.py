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

    @property
    def colour(self) -> str:
        """The rich style every terminal output prints this word in."""
        return GATE_LOOK[self].style

    @property
    def hex_colour(self) -> str:
        """The same colour as ``#rrggbb``, for charts (matplotlib) and HTML."""
        return GATE_LOOK[self].hex

    @property
    def icon(self) -> str:
        """The emoji Markdown reports put before this word."""
        return GATE_LOOK[self].icon


@dataclass(frozen=True)
class GateLook:
    """How one gate word is shown: rich style (terminal), hex colour (charts), icon (Markdown)."""

    style: str
    hex: str
    icon: str


GATE_LOOK: dict[Gate, GateLook] = {
    Gate.PASS: GateLook("bold green", "#2e7d32", "✅"),
    Gate.FAIL: GateLook("bold red", "#c62828", "❌"),
    Gate.HOLD: GateLook("bold yellow", "#ef6c00", "⏸️"),
    Gate.INCOMPLETE: GateLook("bold yellow", "#b28704", "⚠️"),
    Gate.INVALID: GateLook("bold magenta", "#8e24aa", "⛔"),
}
"""The one table of gate colours and icons; every renderer reads it (through the properties above)."""


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
