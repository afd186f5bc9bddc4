"""The verdict of a plan run (``forgegate run``): each comparison's word, then the plan's.

A comparison with all three arm axes is decided by the three-axis rule (``gate.arms``), which keeps
HOLD (the operator's call) as its own word; a semantic or GLOSS primary endpoint adds its reasons.
The plan's word combines the semantic and GLOSS instruments', the run's own reasons (failed or missing
requests, a declared instrument ``forgegate run`` cannot score: INCOMPLETE, never a pass) and the
comparisons' words by ``worst_gate``, except that a plan with a ship decision (``gate.ship``) takes the
word of the arm that ships: its candidates' comparisons keep their own words in the reasons, and a failing
arm that does not ship never sets the exit code (CI reads it, and no one ships that arm). ``pipeline/plan/score.py``
calls these functions.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from forgegate.core.rules import THREE_AXIS_RULE, gate_label
from forgegate.core.verdict import Gate, Reason, Verdict, worst_gate
from forgegate.gate.arms import arms_verdict
from forgegate.gate.semantic import primary_na
from forgegate.gate.ship import ShipDecision

NO_RULE = "no pre-registered pass rule: estimate only"


def comparison_verdict(voice: Verdict | None, mem: Verdict | None, dmg: Verdict | None,
                       extra: Sequence[Reason] = ()) -> Verdict:
    """One comparison's word: the three-axis rule when all three axes ran (its HOLD kept), combined with the
    primary endpoint's reasons (``extra``); otherwise every axis reason that ran, by ``worst_gate``."""
    if voice is not None and mem is not None and dmg is not None:
        axes = arms_verdict(voice, mem, dmg)  # keeps HOLD (operator's call) as its own word
        if not extra:
            return axes
        word = Verdict.combine([Reason(THREE_AXIS_RULE, axes.gate, ""), *extra]).gate
        return Verdict(word, (*axes.reasons, *extra))
    return Verdict.combine([r for v in (voice, mem, dmg) if v is not None for r in v.reasons] + list(extra))


def gloss_primary_reasons(candidate: str, verdict: Verdict) -> list[Reason]:
    """A GLOSS primary endpoint: the candidate arm's GLOSS reasons decide the comparison, named by the arm."""
    return [Reason(f"gloss {candidate}: {r.rule}", r.outcome, r.detail, r.numbers) for r in verdict.reasons]


def semantic_primary_reason(primary: str, value: Mapping[str, Any]) -> Reason:
    """A semantic primary endpoint: NA decides nothing (INCOMPLETE, ``primary_na``); a number with no pass rule
    is an estimate, not a pass: HOLD, the operator's call (a plan cannot pre-register a semantic threshold)."""
    undecided = primary_na(primary, value)
    if undecided is not None:
        return undecided
    return Reason(f"primary {primary}", Gate.HOLD, f"{primary}: {NO_RULE}")


def generation_reasons(failed: int, missing: int) -> list[Reason]:
    """Requests that failed for good or never ran: INCOMPLETE (a missing answer is not a pass)."""
    if not failed and not missing:
        return []
    return [Reason("generation", Gate.INCOMPLETE,
                   f"{failed} requests failed for good and {missing} are "
                   "missing: a missing answer is not a pass (run again to resume)")]


def unscored_instrument_reason(name: str) -> Reason:
    """A declared instrument ``forgegate run`` does not score leaves the verdict INCOMPLETE."""
    return Reason(name, Gate.INCOMPLETE, f"the {name} instrument is declared but forgegate run does not score it")


def plan_gloss_verdict(deciding: Iterable[tuple[str, Gate, str]]) -> Verdict:
    """The plan's GLOSS word over its candidate arms (arm, its GLOSS word, a summary); no candidate decides
    nothing: INCOMPLETE."""
    reasons = [Reason(f"gloss {arm} (candidate)", gate, detail) for arm, gate, detail in deciding]
    if not reasons:
        reasons.append(Reason("gloss", Gate.INCOMPLETE, "no arm has role 'candidate': no GLOSS verdict decides"))
    return Verdict.combine(reasons)


def plan_verdict(run_reasons: Sequence[Reason], comparisons: Iterable[tuple[str, str, Verdict, bool]],
                 semantic: Verdict | None, gloss: Verdict | None, ships: ShipDecision | None = None,
                 ship_arms: Collection[str] = ()) -> Verdict:
    """The plan's word. ``comparisons`` is (candidate, control, verdict, decided by a semantic or GLOSS primary):
    such a comparison's reason says what decided it. With a ship decision, the comparisons of ``ship_arms`` (the
    ship and tied candidates) are reported with their own words but the decision's word stands for them."""
    reasons = list(run_reasons)
    deciding = list(run_reasons)
    for candidate, control, verdict, primary_decides in comparisons:
        detail = gate_label(verdict.gate)
        if primary_decides:  # a semantic or gloss primary: say what decided it
            detail += "".join(f"; {r.detail}" for r in verdict.reasons
                              if r.outcome is verdict.gate and r.outcome is not Gate.PASS)
        decides = ships is None or candidate not in ship_arms
        if not decides:
            detail += (f"; the ship decision sets the plan's word ({ships.arm} ships)" if ships is not None
                       and ships.arm is not None else "; the ship decision sets the plan's word")
        reason = Reason(f"{candidate} vs {control}", verdict.gate, detail)
        reasons.append(reason)
        if decides:
            deciding.append(reason)
    if ships is not None:
        decision = ships.reasons[-1]
        reasons.append(decision)
        deciding.append(decision)
    if semantic is not None:
        reason = Reason("semantic", semantic.gate, "T_GPT metrics (semantic library's word)")
        reasons.append(reason)
        deciding.append(reason)
    if gloss is not None:
        reasons.extend(gloss.reasons)
        deciding.extend(gloss.reasons)
    if not deciding:
        return Verdict.combine(reasons)
    return Verdict(worst_gate(r.outcome for r in deciding), tuple(reasons))
