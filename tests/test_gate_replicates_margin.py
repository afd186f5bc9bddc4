"""The word over K replicates and the margin to the next word (issue 47), as the gate's arithmetic."""

from __future__ import annotations

from pathlib import Path

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.gloss import CategoryResult
from forgegate.gate.gloss_config import load_gate_config
from forgegate.gate.margin import category_margin, gloss_margin
from forgegate.gate.replicates import replicates_verdict

GATE = Path(__file__).resolve().parents[1] / "examples" / "batteries" / "tiny-gate.toml"


def _category(name: str, score: float, outcome: Gate) -> Reason:
    return Reason(f"category {name} >= 0.50", outcome, f"{name} scored {score:.2f}",
                  {"category": name, "floor": 0.5, "score": score})


def _replicate(*reasons: Reason) -> Verdict:
    return Verdict.combine(reasons)


LOOPS_OK = Reason("no response loops", Gate.PASS, "no loop in 5 response(s)")


def test_one_replicate_is_the_spec_verdict_unchanged() -> None:
    verdict = _replicate(_category("LX-G", 0.4, Gate.FAIL), LOOPS_OK)
    assert replicates_verdict([verdict]) is verdict


def test_replicates_that_disagree_hold_and_name_the_flipping_category() -> None:
    good = _replicate(_category("LX-G", 0.6, Gate.PASS), LOOPS_OK)
    bad = _replicate(_category("LX-G", 0.4, Gate.FAIL), LOOPS_OK)
    verdict = replicates_verdict([good, bad, good])
    assert verdict.gate is Gate.HOLD
    assert verdict.reasons[-1].detail == "unstable: PASS in 2 of 3 replicates; flips: LX-G"


def test_replicates_that_all_fail_fail_even_on_different_categories() -> None:
    one = _replicate(_category("LX-G", 0.4, Gate.FAIL), _category("LX-B", 0.6, Gate.PASS))
    two = _replicate(_category("LX-G", 0.6, Gate.PASS), _category("LX-B", 0.4, Gate.FAIL))
    assert replicates_verdict([one, two]).gate is Gate.FAIL


def test_an_invariant_failing_in_one_sample_fails_the_word() -> None:
    ok = _replicate(_category("LX-G", 0.6, Gate.PASS), LOOPS_OK)
    looped = _replicate(_category("LX-G", 0.6, Gate.PASS),
                        Reason("no response loops", Gate.FAIL, "1 looping response(s)"))
    verdict = replicates_verdict([ok, ok, looped])
    assert verdict.gate is Gate.FAIL
    assert next(r for r in verdict.reasons if r.rule == "no response loops").detail.startswith("sample 3:")


def test_an_undecided_replicate_is_never_a_pass() -> None:
    ok = _replicate(_category("LX-G", 0.6, Gate.PASS))
    missing = _replicate(_category("LX-G", 0.6, Gate.PASS),
                         Reason("every request answered", Gate.INCOMPLETE, "1 request(s) failed for good"))
    assert replicates_verdict([ok, missing]).gate is Gate.INCOMPLETE


def test_category_margin_counts_items_to_the_other_side_of_the_floor() -> None:
    failing = category_margin(CategoryResult("LX-G", 0.4, 5, 2, 0, Gate.FAIL), 0.5)
    passing = category_margin(CategoryResult("LX-G", 0.8, 5, 4, 0, Gate.PASS), 0.5)
    assert failing is not None and failing.text == "LX-G 0.40 of 5: one more passing item makes it 0.60"
    assert passing is not None and passing.text == "LX-G 0.80 of 5: two fewer passing items makes it 0.40"
    assert category_margin(CategoryResult("LX-G", 0.5, 5, 2, 1, Gate.INCOMPLETE), 0.5) is None


def test_sigma_margin_takes_the_heaviest_items_first() -> None:
    config, _ = load_gate_config(GATE)  # weights: LX-IDENTITY 0.40 (2 items: 0.20 each), the rest 0.20 (1 item each)
    cats = {"LX-IDENTITY": CategoryResult("LX-IDENTITY", 0.5, 2, 1, 0, Gate.PASS),
            "LX-STOP": CategoryResult("LX-STOP", 0.0, 1, 0, 0, Gate.FAIL),
            "LX-Z": CategoryResult("LX-Z", 0.0, 1, 0, 0, Gate.FAIL),
            "LX-SEMANTIC": CategoryResult("LX-SEMANTIC", 0.0, 1, 0, 0, Gate.FAIL)}
    margin = gloss_margin(config, cats, 0.2)
    assert margin.sigma_total is not None
    assert (margin.sigma_total.passes, margin.sigma_total.items) == (False, 1)
    assert margin.sigma_total.flipped_sigma == 0.4
    assert margin.closest == "LX-IDENTITY"
