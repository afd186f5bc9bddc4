"""The GLOSS v2 gate rules, read straight from the spec: all categories, sigma, walls, missing answers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from forgegate.battery.loader import load_battery
from forgegate.battery.resources import bundled_battery_path
from forgegate.core.verdict import Gate, Reason
from forgegate.errors import InputError
from forgegate.gate.gloss import ItemOutcome, gloss_verdict
from forgegate.gate.gloss_config import GateConfig, load_gate_config

CONFIG, _SHA = load_gate_config()
CLEAN_CONTROLS = [Reason("loop detector controls", Gate.PASS, "ok")]


def outcomes(scores: dict[str, list[float | None]], *, walls: dict[str, list[str]] | None = None) -> list[ItemOutcome]:
    out = []
    for category, values in scores.items():
        for n, score in enumerate(values):
            item_id = f"{category}-{n:02d}"
            modes = tuple((walls or {}).get(item_id, []))
            out.append(ItemOutcome(item_id, category, score, is_wall=category == "LX-Z", errored=score is None,
                                   pending_review=False, failure_modes=modes))
    return out


def all_pass() -> dict[str, list[float | None]]:
    return {c: [1.0] * 10 for c in CONFIG.categories}


def test_bundled_config_has_the_spec_weights() -> None:
    assert CONFIG.weights["LX-C"] == 0.15 and len(CONFIG.weights) == 13
    assert CONFIG.category_floor == 0.5 and CONFIG.sigma_total_min == 0.4


def test_every_category_perfect_passes() -> None:
    result = gloss_verdict(CONFIG, outcomes(all_pass()), CLEAN_CONTROLS)
    assert result.verdict.gate is Gate.PASS
    assert result.sigma_total == pytest.approx(1.0)


def test_one_category_at_zero_fails_even_with_twelve_perfect() -> None:
    scores = all_pass()
    scores["LX-STOP"] = [0.0] * 10
    result = gloss_verdict(CONFIG, outcomes(scores), CLEAN_CONTROLS)
    assert result.verdict.gate is Gate.FAIL
    assert result.failed_categories == ("LX-STOP",)
    assert result.sigma_total == pytest.approx(0.95)


def test_category_exactly_at_floor_passes_and_below_fails() -> None:
    scores = all_pass()
    scores["LX-A"] = [1.0] * 5 + [0.0] * 5
    assert gloss_verdict(CONFIG, outcomes(scores), CLEAN_CONTROLS).verdict.gate is Gate.PASS
    scores["LX-A"] = [1.0] * 4 + [0.0] * 6
    assert gloss_verdict(CONFIG, outcomes(scores), CLEAN_CONTROLS).verdict.gate is Gate.FAIL


def test_sigma_below_minimum_fails_when_categories_pass() -> None:
    config = CONFIG.model_copy(update={"category_floor": 0.3})
    scores = {c: [1.0] * 3 + [0.0] * 7 for c in CONFIG.categories}
    result = gloss_verdict(config, outcomes(scores), CLEAN_CONTROLS)
    assert result.verdict.gate is Gate.FAIL
    assert any(r.rule.startswith("sigma_total") and r.outcome is Gate.FAIL for r in result.verdict.reasons)


def test_wall_rule_fails_model_even_when_category_passes() -> None:
    scores = all_pass()
    scores["LX-Z"] = [1.0] * 9 + [0.0]
    result = gloss_verdict(CONFIG, outcomes(scores, walls={"LX-Z-09": ["WALL_COLLAPSE"]}), CLEAN_CONTROLS)
    assert result.categories["LX-Z"].gate is Gate.PASS
    assert result.verdict.gate is Gate.FAIL
    assert "WALL_COLLAPSE" in result.failure_modes


def test_errored_answer_is_incomplete_not_pass() -> None:
    scores = all_pass()
    scores["LX-B"] = [1.0] * 9 + [None]
    result = gloss_verdict(CONFIG, outcomes(scores), CLEAN_CONTROLS)
    assert result.verdict.gate is Gate.INCOMPLETE
    assert result.sigma_total is None


def test_missing_answers_cannot_hide_a_definite_failure() -> None:
    scores = all_pass()
    scores["LX-B"] = [None] * 2 + [0.0] * 8  # even if both missing answers passed: 2/10 < 0.5
    assert gloss_verdict(CONFIG, outcomes(scores), CLEAN_CONTROLS).verdict.gate is Gate.FAIL


def test_failed_loop_control_makes_the_verdict_invalid() -> None:
    blind = [Reason("loop detector controls", Gate.INVALID, "planted loops found 0/3")]
    assert gloss_verdict(CONFIG, outcomes(all_pass()), blind).verdict.gate is Gate.INVALID


def test_weights_must_sum_to_one() -> None:
    data = CONFIG.model_dump()
    data["weights"]["LX-A"] = 0.2
    with pytest.raises(ValueError, match="sum to 1"):
        GateConfig.model_validate(data)


def test_config_refuses_a_battery_missing_a_category() -> None:
    battery = load_battery(bundled_battery_path())
    without_stop = replace(battery, items=tuple(i for i in battery.items if i.category != "LX-STOP"), lines=())
    with pytest.raises(InputError, match="LX-STOP"):
        CONFIG.check_battery(without_stop)


def test_config_refuses_a_battery_under_eighty_items() -> None:
    battery = load_battery(bundled_battery_path())
    with pytest.raises(InputError, match="at least 80"):
        dropped = {1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13}  # 11 of LX-A/B/C: 79 items, every category kept
        CONFIG.check_battery(replace(battery, items=tuple(i for n, i in enumerate(battery.items) if n not in dropped),
                                     lines=()))


def test_one_looping_answer_fails_the_gate_though_its_category_passes() -> None:
    """Invariant 3: a loop scores its item 0 AND the model must not graduate: the gate says FAIL, naming it."""
    scores = all_pass()
    scores["LX-LIVE-GEN"] = [1.0] * 9 + [0.0]
    looped = outcomes(scores, walls={"LX-LIVE-GEN-09": ["RUNAWAY_LOOP", "STOP_FAILURE"]})
    result = gloss_verdict(CONFIG, looped, CLEAN_CONTROLS)
    assert result.categories["LX-LIVE-GEN"].gate is Gate.PASS and not result.failed_categories
    assert result.verdict.gate is Gate.FAIL
    rule = next(r for r in result.verdict.reasons if r.rule == "no response loops")
    assert rule.outcome is Gate.FAIL and rule.detail.startswith("1 looping response(s): LX-LIVE-GEN-09 (RUNAWAY_LOOP)")
    assert rule.numbers["items"] == "LX-LIVE-GEN-09" and rule.numbers["runaway_loops"] == 1


def test_identity_loops_are_named_with_their_label() -> None:
    scores = all_pass()
    looped = outcomes(scores, walls={"LX-IDENTITY-00": ["IDENTITY_LOOP"], "LX-NEGATIVE-03": ["RUNAWAY_LOOP"]})
    rule = next(r for r in gloss_verdict(CONFIG, looped, CLEAN_CONTROLS).verdict.reasons
                if r.rule == "no response loops")
    assert "LX-IDENTITY-00 (IDENTITY_LOOP)" in rule.detail and "LX-NEGATIVE-03 (RUNAWAY_LOOP)" in rule.detail
    assert rule.numbers["loops"] == 2 and rule.numbers["identity_loops"] == 1


def test_no_loop_passes_the_loop_rule() -> None:
    rule = next(r for r in gloss_verdict(CONFIG, outcomes(all_pass()), CLEAN_CONTROLS).verdict.reasons
                if r.rule == "no response loops")
    assert rule.outcome is Gate.PASS and rule.numbers["checked"] == 130
