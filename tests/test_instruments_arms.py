"""The three-axis rule: a voice FAIL with memorisation and damage clean is HOLD, never PASS."""

from __future__ import annotations

import numpy as np
from instruments_helpers import arm_from_novel, novel

from forgegate.core.rules import gate_label
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import arms_verdict
from forgegate.gate.damage import damage_verdict
from forgegate.metrics import damage_report, memorization_report, voice_report
from forgegate.pipeline.axes import gate_memorization, gate_voice


def _v(gate: Gate, rule: str) -> Verdict:
    return Verdict(gate, (Reason(rule, gate, f"{rule} {gate.value}"),))


def test_voice_fail_with_memorization_and_damage_clean_is_the_operators_call() -> None:
    verdict = arms_verdict(_v(Gate.FAIL, "voice"), _v(Gate.PASS, "memorization"), _v(Gate.PASS, "damage"))
    assert verdict.gate is Gate.HOLD
    assert gate_label(verdict.gate) == "HOLD (operator's call)"
    assert verdict.gate.exit_code == 1


def test_all_three_axes_pass_is_pass() -> None:
    verdict = arms_verdict(_v(Gate.PASS, "voice"), _v(Gate.PASS, "memorization"), _v(Gate.PASS, "damage"))
    assert verdict.gate is Gate.PASS


def test_copying_or_damage_fails_whatever_the_voice() -> None:
    assert arms_verdict(_v(Gate.PASS, "voice"), _v(Gate.FAIL, "memorization"),
                        _v(Gate.PASS, "damage")).gate is Gate.FAIL
    assert arms_verdict(_v(Gate.FAIL, "voice"), _v(Gate.PASS, "memorization"),
                        _v(Gate.FAIL, "damage")).gate is Gate.FAIL


def test_a_failed_control_on_any_axis_is_invalid() -> None:
    verdict = arms_verdict(_v(Gate.PASS, "voice"), _v(Gate.INVALID, "memorization positive control"),
                           _v(Gate.FAIL, "damage"))
    assert verdict.gate is Gate.INVALID
    assert any("positive control" in r.rule for r in verdict.reasons)


def test_an_axis_that_could_not_be_measured_is_incomplete_not_pass() -> None:
    verdict = arms_verdict(_v(Gate.PASS, "voice"), _v(Gate.PASS, "memorization"),
                           _v(Gate.INCOMPLETE, "ran-on"))
    assert verdict.gate is Gate.INCOMPLETE


def test_real_reports_with_voice_fail_and_clean_copying_and_damage_are_hold() -> None:
    rng = np.random.default_rng(7)
    gens = [g.model_copy(update={"finish": "stop"})
            for g in (arm_from_novel("base", "austen-sense-and-sensibility.txt", rng)
                      + arm_from_novel("ckpt", "dickens-a-tale-of-two-cities.txt", rng))]
    voice = gate_voice(voice_report("Austen", novel("austen-emma.txt"), gens, control="base", candidate="ckpt",
                                    segment_words=1000))
    memorization = gate_memorization(memorization_report([novel("austen-emma.txt")], gens, control="base",
                                                         candidate="ckpt", hit_rate_margin=0.02, max_margin=4,
                                                         rng=np.random.default_rng(0)))
    damage = damage_verdict(damage_report(gens, (90, 150), control="base", candidate="ckpt"))
    assert (voice.verdict.gate, memorization.verdict.gate, damage.verdict.gate) == (Gate.FAIL, Gate.PASS,
                                                                                     Gate.PASS)
    verdict = arms_verdict(voice.verdict, memorization.verdict, damage.verdict)
    assert verdict.gate is Gate.HOLD and gate_label(verdict.gate) == "HOLD (operator's call)"
