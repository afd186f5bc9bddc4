"""The ship choice between tied candidates (lv-hemingway v2 § 2): which one ships, or none, and every step of why.

The loss curve cannot separate the tied checkpoints, so the plan pre-registers how they are separated:

1. a tied candidate whose comparison is INVALID or INCOMPLETE cannot be ranked: none ships (a missing answer is
   never a pass, and it might have been the better one);
2. a candidate whose comparison FAILs is out (it cannot ship whatever the others do); one left ships;
3. each declared axis, in the plan's order, keeps the candidates it prefers; an axis that prefers none of them
   over the others "does not resolve" and the next one is read:
   * ``memorization``: the smallest excess over the control (hit rate, then the longest run); identical to the
     control is the best it can be;
   * ``seed_spread``: the tightest voice seed spread, resolving only when every other spread is at least
     ``min_spread_ratio`` times it (a hair's difference is reading noise, as the fourth decimal of the curve is);
4. the declared prior decides a tie the axes leave ("worth testing rather than assuming": it is read last, and
   the reasons say whether the axes confirmed it); without one the tie is the operator's call and none ships.

A HOLD candidate (voice FAIL, nothing copied or damaged) may be chosen: its reason says shipping it stays the
operator's call. ``pipeline/plan_score.py`` measures and hands in plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forgegate.core.declared import TiebreakAxis
from forgegate.core.verdict import Gate, Reason


@dataclass(frozen=True)
class Contender:
    """What the rule reads of one tied candidate: its comparison's word and its figures on the axes."""

    name: str
    gate: Gate
    copy_excess: tuple[float, int] | None
    """(hit rate - control's, longest run - control's) of the memorisation axis; None when not measured."""
    seed_spread: float | None
    """The within-arm seed spread of the voice Delta; None when not measured."""


@dataclass(frozen=True)
class ShipDecision:
    arm: str | None
    reasons: tuple[Reason, ...]

    @property
    def outcome(self) -> Gate:
        """The last step's word (PASS chosen; HOLD chosen at HOLD or a tie left to the operator; FAIL; INCOMPLETE)."""
        return self.reasons[-1].outcome


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def _copy_key(c: Contender) -> tuple[float, int]:
    assert c.copy_excess is not None
    rate, run = c.copy_excess
    return (max(0.0, round(rate, 12)), max(0, run))


def _axis(axis: TiebreakAxis, left: list[Contender], min_spread_ratio: float) -> tuple[list[Contender], Reason]:
    """The candidates ``axis`` keeps of ``left``, and the step's reason (HOLD: it does not resolve)."""
    if axis == "memorization":
        best = min(_copy_key(c) for c in left)
        kept = [c for c in left if _copy_key(c) == best]
        figures = "; ".join(f"{c.name} hit rate {_copy_key(c)[0]:+.3f}, longest run {_copy_key(c)[1]:+d} words "
                            "over the control" + (" (identical to the control)" if _copy_key(c) == (0.0, 0) else "")
                            for c in left)
    else:
        tightest = min(c.seed_spread or 0.0 for c in left)
        kept = [c for c in left if (c.seed_spread or 0.0) < tightest * min_spread_ratio or
                (c.seed_spread or 0.0) == tightest]
        figures = (f"voice seed spread {'; '.join(f'{c.name} {c.seed_spread:.3f}' for c in left)} "
                   f"(resolves at {min_spread_ratio:g}x the tightest)")
    numbers = {c.name: (c.seed_spread if axis == "seed_spread" else _copy_key(c)[0]) for c in left}
    if len(kept) == len(left):
        return left, Reason(f"ship: {axis}", Gate.HOLD, f"{figures}: does not resolve", numbers)
    dropped = [c.name for c in left if c not in kept]
    return kept, Reason(f"ship: {axis}", Gate.PASS,
                        f"{figures}: resolves, keeps {_names([c.name for c in kept])}, drops {_names(dropped)}",
                        numbers)


def _ships(chosen: Contender, why: str, prior: str | None, reasons: list[Reason]) -> ShipDecision:
    detail = f"{chosen.name} ships: {why}"
    if prior is not None and "prior" not in why:
        detail += f"; the prior ({prior}) is {'confirmed' if prior == chosen.name else 'not borne out'}"
    if chosen.gate is Gate.HOLD:
        reasons.append(Reason("ship", Gate.HOLD, detail + "; its comparison is HOLD, so shipping it stays the "
                              "operator's call"))
    else:
        reasons.append(Reason("ship", Gate.PASS, detail))
    return ShipDecision(chosen.name, tuple(reasons))


def _none(outcome: Gate, why: str, reasons: list[Reason]) -> ShipDecision:
    reasons.append(Reason("ship", outcome, f"none ships: {why}"))
    return ShipDecision(None, tuple(reasons))


def ship_choice(contenders: Sequence[Contender], axes: Sequence[TiebreakAxis], prior: str | None,
                min_spread_ratio: float) -> ShipDecision:
    """The pre-registered tiebreak over the tied candidates (see the module docstring), every step a reason."""
    reasons = [Reason("ship: tied", Gate.PASS,
                      f"tied candidates {_names([c.name for c in contenders])}; tiebreak axes "
                      f"{_names(list(axes))}, then the prior {prior or '(none declared)'}")]
    unranked = [c for c in contenders if c.gate in (Gate.INVALID, Gate.INCOMPLETE)]
    if unranked:
        for c in unranked:
            reasons.append(Reason(f"ship: {c.name}", Gate.INCOMPLETE,
                                  f"{c.name}'s comparison is {c.gate.value}: it cannot be ranked"))
        return _none(Gate.INCOMPLETE, f"{_names([c.name for c in unranked])} could not be ranked, and might have "
                     "been the better candidate", reasons)
    for c in contenders:
        if c.gate is Gate.FAIL:
            reasons.append(Reason(f"ship: {c.name}", Gate.FAIL, f"{c.name}'s comparison FAILs: it cannot ship"))
    left = [c for c in contenders if c.gate is not Gate.FAIL]
    if not left:
        return _none(Gate.FAIL, "every tied candidate FAILs its comparison", reasons)
    if len(left) == 1:
        return _ships(left[0], "the only tied candidate whose comparison does not FAIL", prior, reasons)
    for axis in axes:
        missing = [c.name for c in left
                   if (c.copy_excess if axis == "memorization" else c.seed_spread) is None]
        if missing:
            reasons.append(Reason(f"ship: {axis}", Gate.INCOMPLETE, f"not measured for {_names(missing)}"))
            return _none(Gate.INCOMPLETE, f"the {axis} axis could not be read", reasons)
        left, reason = _axis(axis, left, min_spread_ratio)
        reasons.append(reason)
        if len(left) == 1:
            return _ships(left[0], f"the {axis} axis resolves the tie", prior, reasons)
    names = [c.name for c in left]
    if prior is not None and prior in names:
        chosen = next(c for c in left if c.name == prior)
        return _ships(chosen, f"the axes leave {_names(names)} tied, and the declared prior decides", prior,
                      reasons)
    why = "no declared prior" if prior is None else f"the prior ({prior}) is out of the running"
    return _none(Gate.HOLD, f"the axes leave {_names(names)} tied and {why}: the operator's call", reasons)
