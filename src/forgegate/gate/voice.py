"""Axis A's rules (lv-hemingway v2, voice): the Delta gap against the noise floor, and the blindness control.

``metrics/voice.py`` measures (Burrows's Delta per arm and seed, the floors, the held-out folds);
these functions write the reasons. The floor comparison and the controls are read structurally,
so ``gate/`` imports no instrument.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from forgegate.core.rules import format_ratio
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import axis_verdict


class Floors(Protocol):
    """What the voice rule reads of ``metrics.noise_floor.FloorComparison``."""

    @property
    def gap(self) -> float: ...
    @property
    def floor_pairwise(self) -> float: ...
    @property
    def floor_all_arms(self) -> float: ...
    @property
    def floor_all_arms_from(self) -> str: ...
    def improves(self, floor: float) -> bool: ...


class VoiceControlOutcome(Protocol):
    """What the control rule reads of ``metrics.voice.VoiceControls``."""

    @property
    def chunk_words(self) -> int: ...
    @property
    def control_arm(self) -> str: ...
    @property
    def control_arm_min(self) -> float | None: ...
    @property
    def contrasts(self) -> Sequence[tuple[str, float]]: ...
    @property
    def heldout_max(self) -> float: ...
    @property
    def passed(self) -> bool: ...


def voice_control_reason(controls: VoiceControlOutcome) -> Reason:
    """PASS when held-out text of the author scores closer than the control arm; a blind Delta is INVALID."""
    if controls.control_arm_min is None:
        return Reason("voice control", Gate.INCOMPLETE,
                      f"control arm '{controls.control_arm}' has no scored generation: the control cannot run")
    seen = f"{controls.control_arm_min:.3f}"
    contrast = "".join(f"; contrast '{label}' {delta:.3f}" for label, delta in controls.contrasts)
    detail = (f"held-out reference folds (≤{controls.chunk_words} words each) score at most "
              f"{controls.heldout_max:.3f}; control arm '{controls.control_arm}' lowest seed {seen}{contrast}")
    if controls.passed:
        return Reason("voice control", Gate.PASS, detail + ": the author is closer than the control")
    return Reason("voice control", Gate.INVALID,
                  detail + ": held-out text of the author does not score below the control, the "
                  "instrument cannot see this voice (blind)")


def voice_unmeasured(author: str, problem: str) -> Reason:
    """The voice rule when the seeds cannot give a floor: INCOMPLETE, never a pass."""
    return Reason("voice", Gate.INCOMPLETE, f"{author}: {problem}")


def voice_reason(author: str, control: str, candidate: str, control_mean: float, candidate_mean: float,
                 comp: Floors, floor_rule: str, floors_disagree: bool) -> Reason:
    """The pre-registered voice rule on per-seed Deltas: PASS when the gap exceeds the plan's floor;
    the other floor rule's word is said too, so a disagreement between them is never hidden."""
    floor = comp.floor_pairwise if floor_rule == "pairwise" else comp.floor_all_arms
    passed = comp.improves(floor)
    ratio = comp.gap / floor if floor > 0 else None
    words = f"clears at {format_ratio(ratio)}" if passed else f"does not clear ({format_ratio(ratio)})"
    detail = (f"{author}: delta({control}) {control_mean:.3f} - delta({candidate}) "
              f"{candidate_mean:.3f} = {comp.gap:+.3f} vs {floor_rule} floor {floor:.3f}: {words}")
    other_rule, other = (("all-arms", comp.floor_all_arms) if floor_rule == "pairwise"
                         else ("pairwise", comp.floor_pairwise))
    if floors_disagree:
        verdict_other = Gate.PASS.value if comp.improves(other) else Gate.FAIL.value
        detail += (f"; the rules DISAGREE: the {other_rule} floor {other:.3f} "
                   f"(from '{comp.floor_all_arms_from}') would {verdict_other} it")
    else:
        detail += f"; {other_rule} floor {other:.3f} agrees"
    return Reason("voice", Gate.PASS if passed else Gate.FAIL, detail,
                  {"floor_rule": floor_rule, "floor": floor, "gap": comp.gap, "ratio": ratio,
                   "floor_pairwise": comp.floor_pairwise, "floor_all_arms": comp.floor_all_arms})


class VoiceRuleInputs(Protocol):
    """What the voice rule reads of ``metrics.voice.VoiceComparison``."""

    @property
    def author(self) -> str: ...
    @property
    def control(self) -> str: ...
    @property
    def candidate(self) -> str: ...
    @property
    def floor_rule(self) -> str: ...
    @property
    def comparison(self) -> Floors | None: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def control_mean(self) -> float | None: ...
    @property
    def candidate_mean(self) -> float | None: ...
    @property
    def floors_disagree(self) -> bool | None: ...


class VoiceMeasured(Protocol):
    """What the axis's verdict reads of ``metrics.voice.VoiceReport``."""

    @property
    def rule(self) -> VoiceRuleInputs: ...
    @property
    def controls(self) -> VoiceControlOutcome: ...


def voice_rule_reason(rule: VoiceRuleInputs) -> Reason:
    """The voice rule's reason: INCOMPLETE when the seeds give no floor, else the floor rule on the gap."""
    comp, control_mean, candidate_mean = rule.comparison, rule.control_mean, rule.candidate_mean
    if comp is None or control_mean is None or candidate_mean is None:
        return voice_unmeasured(rule.author, rule.problem or "the arms could not be compared")
    return voice_reason(rule.author, rule.control, rule.candidate, control_mean, candidate_mean, comp,
                        rule.floor_rule, bool(rule.floors_disagree))


def voice_verdict(measured: VoiceMeasured) -> Verdict:
    """Axis A's verdict: the controls' reason and the voice rule, combined as every axis's are."""
    return axis_verdict([voice_control_reason(measured.controls), voice_rule_reason(measured.rule)])
