"""The ship choice between tied candidates (gate.ship): every step a reason, the declared order decides."""

from __future__ import annotations

from forgegate.core.verdict import Gate
from forgegate.gate.ship import Contender, ship_choice

IDENTICAL = (0.0, 0)


def c(name: str, gate: Gate = Gate.PASS, copy: tuple[float, int] | None = IDENTICAL,
      spread: float | None = 0.1) -> Contender:
    return Contender(name, gate, copy, spread)


def test_memorisation_identical_to_the_control_resolves_first() -> None:
    # ckpt1750 copies more than the control; ckpt850 is identical to it: memorisation resolves before spread
    d = ship_choice([c("ckpt1750", copy=(0.02, 3), spread=0.01), c("ckpt850", spread=0.3)],
                    ["memorization", "seed_spread"], "ckpt850", 2.0)
    assert d.arm == "ckpt850" and d.outcome is Gate.PASS
    rules = [r.rule for r in d.reasons]
    assert rules == ["ship: tied", "ship: memorization", "ship"]  # spread never read: the first axis resolved
    assert "identical to the control" in d.reasons[1].detail and "drops ckpt1750" in d.reasons[1].detail
    assert "the prior (ckpt850) is confirmed" in d.reasons[-1].detail


def test_the_declared_order_of_the_axes_decides() -> None:
    contenders = [c("ckpt1750", copy=(0.02, 3), spread=0.01), c("ckpt850", spread=0.3)]
    d = ship_choice(contenders, ["seed_spread", "memorization"], "ckpt850", 2.0)
    assert d.arm == "ckpt1750"  # the tighter spread (30x) resolves first in this order
    assert "not borne out" in d.reasons[-1].detail


def test_a_spread_difference_under_the_declared_ratio_does_not_resolve_and_the_prior_decides() -> None:
    d = ship_choice([c("ckpt1750", spread=0.10), c("ckpt850", spread=0.15)], ["memorization", "seed_spread"],
                    "ckpt850", 2.0)
    assert [r.outcome for r in d.reasons[1:3]] == [Gate.HOLD, Gate.HOLD]
    assert all("does not resolve" in r.detail for r in d.reasons[1:3])
    assert d.arm == "ckpt850" and "the declared prior decides" in d.reasons[-1].detail
    # the Bronte figure: 2.7x tighter resolves at the default ratio
    d = ship_choice([c("ckpt1750", spread=0.27), c("ckpt850", spread=0.10)], ["seed_spread"], None, 2.0)
    assert d.arm == "ckpt850"


def test_without_a_prior_an_unresolved_tie_ships_none_as_the_operators_call() -> None:
    d = ship_choice([c("a"), c("b")], ["memorization", "seed_spread"], None, 2.0)
    assert d.arm is None and d.outcome is Gate.HOLD and "operator's call" in d.reasons[-1].detail


def test_a_failing_candidate_is_out_and_the_other_ships_by_elimination() -> None:
    d = ship_choice([c("ckpt1750", Gate.FAIL), c("ckpt850", spread=9.0)], ["seed_spread"], "ckpt1750", 2.0)
    assert d.arm == "ckpt850" and any(r.outcome is Gate.FAIL and "ckpt1750" in r.rule for r in d.reasons)
    d = ship_choice([c("a", Gate.FAIL), c("b", Gate.FAIL)], ["seed_spread"], None, 2.0)
    assert d.arm is None and d.outcome is Gate.FAIL


def test_an_unrankable_candidate_means_none_ships() -> None:
    for word in (Gate.INCOMPLETE, Gate.INVALID):
        d = ship_choice([c("a", word), c("b")], ["memorization"], "b", 2.0)
        assert d.arm is None and d.outcome is Gate.INCOMPLETE, word
    d = ship_choice([c("a", spread=None), c("b")], ["seed_spread"], "b", 2.0)
    assert d.arm is None and d.outcome is Gate.INCOMPLETE and "not measured for a" in d.reasons[-2].detail


def test_a_hold_candidate_may_be_chosen_but_shipping_stays_the_operators_call() -> None:
    d = ship_choice([c("a", Gate.HOLD, spread=0.01), c("b", Gate.HOLD, spread=0.5)], ["seed_spread"], None, 2.0)
    assert d.arm == "a" and d.outcome is Gate.HOLD and "operator's call" in d.reasons[-1].detail
