"""The three-axis rule: an arm's voice, memorisation and damage verdicts combined into one gate word.

* the axes combine by ``forgegate.core.verdict.worst_gate`` (INVALID > FAIL > INCOMPLETE > HOLD > PASS):
  a control failed -> INVALID; memorisation or damage FAIL -> FAIL even with an axis incomplete;
* voice FAIL with memorisation and damage clean -> HOLD (operator's call), never PASS:
  the voice did not move beyond its floor, but nothing was copied or damaged, so shipping
  is a judgement (additive, reversible, safety-clean) that belongs to the operator;
* all three PASS -> PASS.
"""

from __future__ import annotations

from collections.abc import Iterable

from forgegate.core.kinds import AXES
from forgegate.core.rules import THREE_AXIS_RULE
from forgegate.core.verdict import Gate, Reason, Verdict, worst_gate


def axis_verdict(reasons: Iterable[Reason]) -> Verdict:
    """One axis's verdict (voice, memorisation or damage): its control reasons and its rule, by ``worst_gate``."""
    return Verdict.combine(reasons)


def arms_verdict(voice: Verdict, memorization: Verdict, damage: Verdict) -> Verdict:
    """Combine the three axis verdicts of one candidate; every axis reason is kept, prefixed by its axis."""
    reasons: list[Reason] = []
    for axis, verdict in zip(AXES, (voice, memorization, damage), strict=True):
        reasons.extend(Reason(f"{axis}: {r.rule}" if not r.rule.startswith(axis) else r.rule, r.outcome,
                              r.detail, r.numbers) for r in verdict.reasons)
    gates = {"voice": voice.gate, "memorization": memorization.gate, "damage": damage.gate}
    if voice.gate is Gate.FAIL and memorization.gate is Gate.PASS and damage.gate is Gate.PASS:
        # The voice FAIL stays a FAIL in the reasons; this rule sets the word the operator sees.
        reasons.append(Reason(THREE_AXIS_RULE, Gate.HOLD,
                              "voice FAIL with memorisation and damage clean: the operator's call, not a PASS"))
        return Verdict(Gate.HOLD, tuple(reasons))
    else:
        words = ", ".join(f"{axis} {gate.value}" for axis, gate in gates.items())
        reasons.append(Reason(THREE_AXIS_RULE, worst_gate(gates.values()), words))
    return Verdict.combine(reasons)

