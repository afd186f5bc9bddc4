"""The word over K replicates: replicate j is the battery answered by sample j of every item.

The spec's gate runs on each replicate (``gloss_verdict`` / ``live_verdict``); this rule combines their reasons:

* a per-answer invariant (a loop, an answered wall, a failed request, a control, a signature: every rule that is
  not a score against a floor) takes its worst outcome over the samples, so a loop or an answered wall in any
  sample is a FAIL, as with one sample;
* a score rule (a category's floor, sigma_total, the live test's correct count) whose replicates disagree is HOLD,
  and names the category that flips;
* the replicates' own words: PASS only when every replicate PASSes, FAIL when every replicate FAILs, HOLD when they
  disagree ("unstable: PASS in j of K replicates"), INCOMPLETE while a replicate is undecided and none disagree.

One sample is the spec's procedure: its verdict is returned unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from forgegate.core.rules import REPLICATES_RULE
from forgegate.core.verdict import Gate, Number, Reason, Verdict, worst_gate

_SCORE_KEYS = ("floor", "sigma_total_min", "min_correct")
"""A reason is a score against a floor when its numbers carry one of these (``gate.gloss``, ``gate.live``)."""


def is_score_rule(reason: Reason) -> bool:
    """Whether ``reason`` compares a score with a floor (a rule a replicate can flip), not a per-answer invariant."""
    return any(key in reason.numbers for key in _SCORE_KEYS)


def flip_label(reason: Reason) -> str:
    """What a flipping score rule is called in the HOLD reason: its category, ``sigma_total``, or the rule."""
    category = reason.numbers.get("category")
    if isinstance(category, str):
        return category
    return "sigma_total" if "sigma_total_min" in reason.numbers else reason.rule


def _score_shown(reason: Reason) -> str:
    """A score rule's number in one replicate: the category's score or sigma_total (``n/a`` without one)."""
    value = reason.numbers.get("score", reason.numbers.get("sigma_answered", reason.numbers.get("correct")))
    return f"{value:.2f}" if isinstance(value, float) else ("n/a" if value is None else str(value))


def _merged(rule: str, found: list[tuple[int, Reason]], k: int) -> tuple[Reason, bool]:
    """One rule's reasons over the replicates as one reason, and whether its word flips between them."""
    first = found[0][1]
    outcomes = [reason.outcome for _, reason in found]
    if len(set(outcomes)) == 1 and len({reason.detail for _, reason in found}) == 1 and len(found) == k:
        return first, False
    passed = sum(outcome is Gate.PASS for outcome in outcomes)
    numbers: dict[str, Number] = {**first.numbers, "replicates": k, "replicates_pass": passed}
    if is_score_rule(first) and set(outcomes) <= {Gate.PASS, Gate.FAIL} and len(found) == k:
        scores = ", ".join(_score_shown(reason) for _, reason in found)
        if len(set(outcomes)) == 2:
            return Reason(rule, Gate.HOLD, f"{flip_label(first)} flips: PASS in {passed} of {k} replicates "
                                           f"(scores {scores})", numbers), True
        return Reason(rule, outcomes[0], f"{flip_label(first)} {outcomes[0].value} in all {k} replicates "
                                         f"(scores {scores})", numbers), False
    worst = worst_gate(outcomes)
    details = list(dict.fromkeys(f"sample {j + 1}: {reason.detail}" for j, reason in found
                                 if reason.outcome is worst))
    more = f" and {len(details) - 3} more" if len(details) > 3 else ""
    worst_numbers = next(reason.numbers for _, reason in found if reason.outcome is worst)
    return Reason(rule, worst, "; ".join(details[:3]) + more,
                  {**worst_numbers, "replicates": k, "replicates_pass": passed}), False


def agreement_reason(words: Sequence[Gate], flips: Sequence[str]) -> Reason:
    """The replicates' own words: PASS when all PASS, FAIL when all FAIL, HOLD when PASS and FAIL both occur."""
    k, passed = len(words), sum(word is Gate.PASS for word in words)
    failed = sum(word is Gate.FAIL for word in words)
    numbers: dict[str, Number] = {"samples": k, "passed": passed, "failed": failed, "flips": ", ".join(flips)}
    flipping = f"; flips: {', '.join(flips)}" if flips else ""
    if passed == k:
        return Reason(REPLICATES_RULE, Gate.PASS, f"PASS in {k} of {k} replicates", numbers)
    if failed == k:
        return Reason(REPLICATES_RULE, Gate.FAIL, f"FAIL in {k} of {k} replicates", numbers)
    if passed and failed:
        return Reason(REPLICATES_RULE, Gate.HOLD, f"unstable: PASS in {passed} of {k} replicates{flipping}", numbers)
    return Reason(REPLICATES_RULE, Gate.INCOMPLETE,
                  f"PASS in {passed}, FAIL in {failed}, undecided in {k - passed - failed} of {k} replicates",
                  numbers)


def replicates_verdict(replicates: Sequence[Verdict]) -> Verdict:
    """The word over K replicates (see the module's rule); one replicate is returned as it is."""
    if not replicates:
        raise ValueError("no replicate to decide on")
    if len(replicates) == 1:
        return replicates[0]
    k = len(replicates)
    rules = list(dict.fromkeys(reason.rule for verdict in replicates for reason in verdict.reasons))
    merged: list[Reason] = []
    flips: list[str] = []
    for rule in rules:
        found = [(j, reason) for j, verdict in enumerate(replicates) for reason in verdict.reasons
                 if reason.rule == rule]
        reason, flipped = _merged(rule, found, k)
        merged.append(reason)
        if flipped:
            flips.append(flip_label(reason))
    merged.append(agreement_reason([verdict.gate for verdict in replicates], flips))
    return Verdict.combine(merged)
