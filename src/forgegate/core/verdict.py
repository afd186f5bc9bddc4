"""Verdicts: the gate words, the one order in which they combine, and reasons that carry their numbers.

Every gate (GLOSS categories, the live test, the three-axis arm rule, T_GPT, audits) combines its
rules' words with ``worst_gate``; the order is written once, here:

    INVALID > FAIL > INCOMPLETE > HOLD > PASS

* INVALID beats everything: a control failed, so no other number can be trusted.
* A definite FAIL is a FAIL even when other answers are missing: the rules that produce FAIL only
  do so when the failure holds whatever the missing answers would have been.
* INCOMPLETE beats HOLD and PASS: a missing answer is never a pass.
* HOLD (the operator's call) is not a pass either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Gate(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    HOLD = "HOLD"
    INCOMPLETE = "INCOMPLETE"
    INVALID = "INVALID"

    @property
    def exit_code(self) -> int:
        """The exit-code contract of every gating command: 0 PASS, 1 FAIL or HOLD, 3 INCOMPLETE, 4 INVALID."""
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
FAILING_HEX = GATE_LOOK[Gate.FAIL].hex
"""The colour a chart marks a failing part in (a bar at its cap): FAIL's, named here so no renderer picks a word."""


EXIT_BAD_INPUT = 2
"""Bad input, a bad option, or a file or store the user must fix; never a verdict."""
EXIT_INTERNAL_ERROR = 70
"""A bug in forgegate (BSD's EX_SOFTWARE): the traceback goes to a crash file, never to exit 1."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, the shell's convention); what is stored stays, the same command resumes."""
EXIT_TERMINATED = 143
"""SIGTERM (128 + 15: ``kill``, a CI job's timeout, ``docker stop``): handled as Ctrl-C is, its own code."""
EXIT_BROKEN_PIPE = 141
"""The reader of stdout went away (``forgegate runs | head``): 128 + SIGPIPE, quietly, as Unix tools end."""


GATE_ORDER: tuple[Gate, ...] = (Gate.INVALID, Gate.FAIL, Gate.INCOMPLETE, Gate.HOLD, Gate.PASS)
"""Worst first; see the module docstring for why."""


def worst_gate(gates: Iterable[Gate]) -> Gate:
    """The word a set of rule outcomes decides (no outcomes at all is INCOMPLETE: nothing was checked)."""
    seen = set(gates)
    for gate in GATE_ORDER:
        if gate in seen:
            return gate
    return Gate.INCOMPLETE


Number = float | int | str | bool | None


@dataclass(frozen=True)
class Reason:
    """One rule that contributed to a verdict: its outcome, a sentence, and the numbers it compared.

    ``numbers`` is what a report reads (``reason.numbers["floor"]``); ``detail`` is for people.
    """

    rule: str
    outcome: Gate
    detail: str
    numbers: Mapping[str, Number] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    gate: Gate
    reasons: tuple[Reason, ...]

    @staticmethod
    def combine(reasons: Iterable[Reason]) -> Verdict:
        """The verdict of these reasons under ``worst_gate``; no reasons at all is INCOMPLETE."""
        reasons = tuple(reasons)
        if not reasons:
            return Verdict(Gate.INCOMPLETE, (Reason("no-rules", Gate.INCOMPLETE, "no rule was evaluated"),))
        return Verdict(worst_gate(r.outcome for r in reasons), reasons)
