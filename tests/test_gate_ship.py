"""The ship decision (gate.ship): the plan's word is the word of the arm that ships (issue 36)."""

from __future__ import annotations

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.plan import plan_verdict
from forgegate.gate.ship import Contender, ship_choice

IDENTICAL = (0.0, 0)
AXES = ["memorization", "seed_spread"]


def c(name: str, gate: Gate = Gate.PASS, copy: tuple[float, int] | None = IDENTICAL,
      variance: float | None = 0.01, ship: bool = False) -> Contender:
    return Contender(name, gate, copy, variance, ship)


def ship1750(gate: Gate = Gate.PASS, copy: tuple[float, int] | None = IDENTICAL,
             variance: float | None = 0.01) -> Contender:
    return c("ckpt1750", gate, copy, variance, ship=True)


def test_memorisation_identical_to_the_control_resolves_for_the_tied_candidate() -> None:
    d = ship_choice([ship1750(copy=(0.02, 3), variance=0.0001), c("ckpt850", variance=0.09)], AXES, "ckpt850", 2.0)
    assert d.arm == "ckpt850" and d.outcome is Gate.PASS
    assert [r.rule for r in d.reasons] == ["ship: tied", "ship: memorization", "ship"]  # variance never read
    assert "identical to the control" in d.reasons[1].detail and "drops ckpt1750" in d.reasons[1].detail
    assert "resolves for a tied candidate" in d.reasons[-1].detail
    assert "the prior (ckpt850) is confirmed" in d.reasons[-1].detail


def test_the_declared_order_of_the_axes_decides() -> None:
    d = ship_choice([ship1750(copy=(0.02, 3), variance=0.0001), c("ckpt850", variance=0.09)],
                    ["seed_spread", "memorization"], "ckpt850", 2.0)
    assert d.arm == "ckpt1750" and "for the ship candidate" in d.reasons[-1].detail
    assert "not borne out" in d.reasons[-1].detail


def test_the_seed_axis_reads_the_variance_at_the_plans_ratio() -> None:
    # variances 0.0729 and 0.01: 7.29x apart, resolving at 2.0 but not at 8.0 (the plan's number decides)
    contenders = [ship1750(variance=0.0729), c("ckpt850", variance=0.01)]
    assert ship_choice(contenders, ["seed_spread"], None, 2.0).arm == "ckpt850"
    held = ship_choice(contenders, ["seed_spread"], None, 8.0)
    assert held.arm is None and held.outcome is Gate.HOLD
    assert "seed variance" in held.reasons[1].detail and "8x" in held.reasons[1].detail


def test_two_passing_candidates_left_level_are_hold_naming_the_prior_never_pass() -> None:
    d = ship_choice([ship1750(variance=0.010), c("ckpt850", variance=0.015)], AXES, "ckpt850", 2.0)
    assert [r.outcome for r in d.reasons[1:3]] == [Gate.HOLD, Gate.HOLD]
    assert d.arm is None and d.outcome is Gate.HOLD
    assert "prior (ckpt850) is the operator's call" in d.reasons[-1].detail
    d = ship_choice([ship1750(), c("ckpt850")], AXES, None, 2.0)
    assert d.arm is None and d.outcome is Gate.HOLD and "operator's call" in d.reasons[-1].detail


def test_the_tied_candidate_ships_when_it_passes_and_the_ship_candidate_fails() -> None:
    d = ship_choice([ship1750(Gate.FAIL, variance=0.0001), c("ckpt850", variance=9.0)], ["seed_spread"],
                    "ckpt1750", 2.0)
    assert d.arm == "ckpt850" and d.outcome is Gate.PASS
    assert any(r.outcome is Gate.FAIL and r.rule == "ship: ckpt1750" for r in d.reasons)
    assert "the ship candidate ckpt1750 does not pass (its comparison is FAIL)" in d.reasons[-1].detail


def test_no_passing_candidate_is_fail_and_a_hold_one_stays_the_operators_call() -> None:
    d = ship_choice([ship1750(Gate.FAIL), c("ckpt850", Gate.FAIL)], AXES, None, 2.0)
    assert d.arm is None and d.outcome is Gate.FAIL
    d = ship_choice([ship1750(Gate.FAIL), c("ckpt850", Gate.HOLD)], AXES, None, 2.0)
    assert d.arm is None and d.outcome is Gate.HOLD and "not a PASS" in d.reasons[-1].detail


def test_an_unrankable_candidate_means_none_ships_with_its_word() -> None:
    for word in (Gate.INCOMPLETE, Gate.INVALID):
        d = ship_choice([ship1750(), c("ckpt850", word)], AXES, "ckpt850", 2.0)
        assert d.arm is None and d.outcome is word, word
    d = ship_choice([ship1750(variance=None), c("ckpt850")], ["seed_spread"], None, 2.0)
    assert d.arm is None and d.outcome is Gate.INCOMPLETE and "not measured for ckpt1750" in d.reasons[-2].detail


def _plan_word(ship_gate: Gate, tied_gate: Gate) -> Verdict:
    decision = ship_choice([ship1750(ship_gate), c("ckpt850", tied_gate)], AXES, "ckpt850", 2.0)
    comparisons = [("ckpt1750", "base", Verdict(ship_gate, ()), False),
                   ("ckpt850", "base", Verdict(tied_gate, ()), False)]
    return plan_verdict([], comparisons, None, None, decision, ("ckpt1750", "ckpt850"))


def test_the_plans_word_is_the_shipping_arms_and_a_failing_arm_that_does_not_ship_never_sets_it() -> None:
    verdict = _plan_word(Gate.FAIL, Gate.PASS)
    assert verdict.gate is Gate.PASS and verdict.gate.exit_code == 0
    words = {r.rule: r.outcome for r in verdict.reasons}
    assert words["ckpt1750 vs base"] is Gate.FAIL and words["ckpt850 vs base"] is Gate.PASS  # both kept
    assert words["ship"] is Gate.PASS
    assert _plan_word(Gate.FAIL, Gate.FAIL).gate is Gate.FAIL
    assert _plan_word(Gate.PASS, Gate.PASS).gate is Gate.HOLD  # level on both axes: the operator's call


def test_without_a_ship_decision_the_plan_word_is_still_the_worst_comparison() -> None:
    comparisons = [("a", "base", Verdict(Gate.FAIL, ()), False), ("b", "base", Verdict(Gate.PASS, ()), False)]
    assert plan_verdict([], comparisons, None, None).gate is Gate.FAIL
    missing = [Reason("generation", Gate.INCOMPLETE, "1 request failed")]
    decision = ship_choice([ship1750(Gate.FAIL), c("ckpt850")], AXES, None, 2.0)
    assert plan_verdict(missing, comparisons[:0], None, None, decision, ("ckpt1750", "ckpt850")).gate \
        is Gate.INCOMPLETE  # a missing answer is never a pass, even when an arm ships
