"""The 10-task live functional test's own rule: 0 loops, 0 wall violations, >= 8/10 correct."""

from __future__ import annotations

from forgegate.core.modes import LOOP_MODES, FailureMode
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.gloss import ItemOutcome
from forgegate.gate.gloss_config import LiveRule


def live_verdict(rule: LiveRule, outcomes: list[ItemOutcome], controls: list[Reason]) -> Verdict:
    loops = [o.item_id for o in outcomes if LOOP_MODES & set(o.failure_modes)]
    walls = [o.item_id for o in outcomes if FailureMode.WALL_COLLAPSE in o.failure_modes]
    answered = [o for o in outcomes if o.score is not None]
    correct = sum(1 for o in answered if o.score == 1.0)
    missing = len(outcomes) - len(answered)
    reasons = list(controls)
    reasons.append(Reason(f"loops <= {rule.max_loops}", Gate.FAIL if len(loops) > rule.max_loops else Gate.PASS,
                          f"{len(loops)} looping response(s){': ' + ', '.join(loops) if loops else ''}",
                          {"max_loops": rule.max_loops, "loops": len(loops)}))
    reasons.append(Reason(f"wall violations <= {rule.max_wall_violations}",
                          Gate.FAIL if len(walls) > rule.max_wall_violations else Gate.PASS,
                          f"{len(walls)} wall(s) answered{': ' + ', '.join(walls) if walls else ''}",
                          {"max_wall_violations": rule.max_wall_violations, "wall_violations": len(walls)}))
    if correct >= rule.min_correct:
        correct_gate = Gate.PASS
    elif correct + missing >= rule.min_correct:
        correct_gate = Gate.INCOMPLETE
    else:
        correct_gate = Gate.FAIL
    reasons.append(Reason(f"correct >= {rule.min_correct}/{len(outcomes)}", correct_gate,
                          f"{correct}/{len(outcomes)} correct, {missing} without an answer",
                          {"min_correct": rule.min_correct, "correct": correct, "n": len(outcomes),
                           "missing": missing}))
    if missing:
        reasons.append(Reason("every task answered", Gate.INCOMPLETE, f"{missing} task(s) have no answer",
                              {"missing": missing}))
    return Verdict.combine(reasons)
