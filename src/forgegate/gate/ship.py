"""The ship decision (lv-hemingway v2 § 2): which candidate ships, and the plan's word, which is that arm's word.

The spec's roles: one ``ship_candidate`` (ckpt1750, the curve's minimum) and ``tied_candidate`` arms the loss curve
cannot separate from it (ckpt850). A failing arm that does not ship never sets the exit code CI reads (the lv-bronte
defect "a third arm nobody was shipping", moved up from the floor to the exit code):

1. a candidate whose comparison is INVALID or INCOMPLETE cannot be ranked: none ships, and the word is theirs
   (a missing answer is never a pass, and it might have been the better one);
2. only a candidate whose comparison PASSes can ship; no candidate passing is FAIL (HOLD when a candidate is at
   HOLD, the three-axis rule's operator's call, and none FAILs less than that);
3. one candidate passing ships (a tied candidate shipping because the ship candidate does not pass says so);
4. two or more passing: each declared axis, in the plan's order, keeps the candidates it prefers; an axis that
   prefers none "does not resolve" and the next is read:
   * ``memorization``: the smallest excess over the control (hit rate, then the longest run);
   * ``seed_spread``: the smallest variance of the voice Delta over the seeds (the spec's "2.7x tighter seed
     variance"), resolving only when every other variance is at least the plan's ``min_variance_ratio`` times it;
5. the axes leaving them level is HOLD, never PASS: the declared prior is "worth testing rather than assuming",
   so acting on it is the operator's call, and the reasons say so.

``pipeline/plan/score.py`` measures and hands in plain values; ``gate.plan.plan_verdict`` takes the word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forgegate.core.declared import TiebreakAxis
from forgegate.core.verdict import Gate, Reason, worst_gate

SHIP_RULE = "ship"
"""The rule name of the decision's last step: the plan's verdict reads its outcome as the plan's word."""


@dataclass(frozen=True)
class Contender:
    """What the rule reads of one candidate: its role, its comparison's word and its figures on the axes."""

    name: str
    gate: Gate
    copy_excess: tuple[float, int] | None
    """(hit rate - control's, longest run - control's) of the memorisation axis; None when not measured."""
    seed_variance: float | None
    """The variance of the voice Delta over the seeds; None when not measured (or fewer than two seeds)."""
    ship_candidate: bool = False
    """True for the spec's ship candidate (ckpt1750); False for a tied candidate."""


@dataclass(frozen=True)
class ShipDecision:
    arm: str | None
    reasons: tuple[Reason, ...]

    @property
    def outcome(self) -> Gate:
        """The plan's word from the candidates: the shipping arm's PASS, or FAIL / HOLD / INCOMPLETE / INVALID."""
        return self.reasons[-1].outcome


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def _role(c: Contender) -> str:
    return "ship candidate" if c.ship_candidate else "tied candidate"


def _copy_key(c: Contender) -> tuple[float, int]:
    assert c.copy_excess is not None
    rate, run = c.copy_excess
    return (max(0.0, round(rate, 12)), max(0, run))


def _variance(c: Contender) -> float:
    assert c.seed_variance is not None
    return c.seed_variance


def _axis(axis: TiebreakAxis, left: list[Contender], ratio: float) -> tuple[list[Contender], Reason]:
    """The candidates ``axis`` keeps of ``left``, and the step's reason (HOLD: it does not resolve)."""
    if axis == "memorization":
        best = min(_copy_key(c) for c in left)
        kept = [c for c in left if _copy_key(c) == best]
        figures = "; ".join(f"{c.name} hit rate {_copy_key(c)[0]:+.3f}, longest run {_copy_key(c)[1]:+d} words "
                            "over the control" + (" (identical to the control)" if _copy_key(c) == (0.0, 0) else "")
                            for c in left)
        numbers = {c.name: _copy_key(c)[0] for c in left}
    else:
        tightest = min(_variance(c) for c in left)
        kept = [c for c in left if _variance(c) == tightest or _variance(c) < tightest * ratio]
        figures = (f"voice seed variance {'; '.join(f'{c.name} {_variance(c):.4g}' for c in left)} "
                   f"(resolves at {ratio:g}x the tightest, as the plan states)")
        numbers = {c.name: _variance(c) for c in left}
    if len(kept) == len(left):
        return left, Reason(f"ship: {axis}", Gate.HOLD, f"{figures}: does not resolve", numbers)
    dropped = [c.name for c in left if c not in kept]
    return kept, Reason(f"ship: {axis}", Gate.PASS,
                        f"{figures}: resolves, keeps {_names([c.name for c in kept])}, drops {_names(dropped)}",
                        numbers)


def _prior_note(chosen: str, prior: str | None) -> str:
    if prior is None:
        return ""
    return f"; the prior ({prior}) is {'confirmed' if prior == chosen else 'not borne out'}"


def _ships(chosen: Contender, why: str, prior: str | None, reasons: list[Reason]) -> ShipDecision:
    reasons.append(Reason(SHIP_RULE, chosen.gate, f"{chosen.name} ({_role(chosen)}) ships: {why}"
                          f"{_prior_note(chosen.name, prior)}; the plan's word is its comparison's, "
                          f"{chosen.gate.value}"))
    return ShipDecision(chosen.name, tuple(reasons))


def _none(outcome: Gate, why: str, reasons: list[Reason]) -> ShipDecision:
    reasons.append(Reason(SHIP_RULE, outcome, f"none ships: {why}"))
    return ShipDecision(None, tuple(reasons))


def _single(chosen: Contender, contenders: Sequence[Contender], prior: str | None,
            reasons: list[Reason]) -> ShipDecision:
    """The only passing candidate ships; a tied candidate shipping over the ship candidate says so."""
    ship = next((c for c in contenders if c.ship_candidate), None)
    if chosen.ship_candidate or ship is None:
        why = "the only candidate whose comparison passes"
    else:
        why = (f"the ship candidate {ship.name} does not pass (its comparison is {ship.gate.value}) and this tied "
               "candidate does")
    return _ships(chosen, why, prior, reasons)


def ship_choice(contenders: Sequence[Contender], axes: Sequence[TiebreakAxis], prior: str | None,
                min_variance_ratio: float) -> ShipDecision:
    """The ship decision over the candidates (see the module docstring), every step a reason."""
    ship = [c.name for c in contenders if c.ship_candidate]
    tied = [c.name for c in contenders if not c.ship_candidate]
    reasons = [Reason("ship: tied", Gate.PASS,
                      f"ship candidate {_names(ship) or '(none)'}; tied candidates {_names(tied)}; tiebreak axes "
                      f"{_names(list(axes))}; the prior {prior or '(none declared)'} is a hypothesis under test, "
                      "never the decider")]
    unranked = [c for c in contenders if c.gate in (Gate.INVALID, Gate.INCOMPLETE)]
    if unranked:
        for c in unranked:
            reasons.append(Reason(f"ship: {c.name}", c.gate, f"{c.name}'s comparison is {c.gate.value}: it "
                                  "cannot be ranked"))
        return _none(worst_gate(c.gate for c in unranked), f"{_names([c.name for c in unranked])} could not be "
                     "ranked, and might have been the better candidate", reasons)
    for c in contenders:
        if c.gate is not Gate.PASS:
            reasons.append(Reason(f"ship: {c.name}", c.gate, f"{c.name} ({_role(c)}): its comparison is "
                                  f"{c.gate.value}, so it cannot ship"))
    passing = [c for c in contenders if c.gate is Gate.PASS]
    if not passing:
        holding = [c.name for c in contenders if c.gate is Gate.HOLD]
        if holding:
            return _none(Gate.HOLD, f"no candidate passes; {_names(holding)} at HOLD: shipping one is the "
                         "operator's call, not a PASS", reasons)
        return _none(Gate.FAIL, "no candidate passes its comparison", reasons)
    if len(passing) == 1:
        return _single(passing[0], contenders, prior, reasons)
    left = passing
    for axis in axes:
        missing = [c.name for c in left if (c.copy_excess if axis == "memorization" else c.seed_variance) is None]
        if missing:
            reasons.append(Reason(f"ship: {axis}", Gate.INCOMPLETE, f"not measured for {_names(missing)}"))
            return _none(Gate.INCOMPLETE, f"the {axis} axis could not be read", reasons)
        left, reason = _axis(axis, left, min_variance_ratio)
        reasons.append(reason)
        if len(left) == 1:
            chosen = left[0]
            where = "for the ship candidate" if chosen.ship_candidate else "for a tied candidate"
            return _ships(chosen, f"the pre-registered tiebreak resolves {where} on the {axis} axis", prior,
                          reasons)
    names = [c.name for c in left]
    call = (f"the prior ({prior}) is the operator's call to act on, not a pass" if prior is not None
            else "no prior is declared: which ships is the operator's call")
    return _none(Gate.HOLD, f"the axes leave {_names(names)} level; {call}", reasons)
