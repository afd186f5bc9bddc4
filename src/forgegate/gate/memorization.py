"""Axis B's rules (lv-hemingway v2, not copied): the plan's margins over the control arm, and both controls.

``metrics/memorization.py`` measures (longest verbatim n-gram runs, the positive and negative
controls' figures); these functions write the reasons. Inputs are read structurally, so ``gate/``
imports no instrument.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import axis_verdict


class ArmCopying(Protocol):
    """What the rule reads of one arm (``metrics.memorization.ArmMemorization``)."""

    @property
    def hit_rate(self) -> float: ...
    @property
    def max(self) -> int: ...


class CopyControls(Protocol):
    """What the control rule reads of ``metrics.memorization.MemorizationControls``."""

    @property
    def passages(self) -> int: ...
    @property
    def passage_words(self) -> int: ...
    @property
    def positive_hit_rate(self) -> float: ...
    @property
    def positive_min_found(self) -> int: ...
    @property
    def positive_max(self) -> int: ...
    @property
    def negative_hit_rate(self) -> float: ...
    @property
    def negative_max(self) -> int: ...
    @property
    def saturated(self) -> bool: ...
    @property
    def negative_clean(self) -> bool: ...


def memorization_control_reasons(controls: CopyControls, n: int, negative_max_hit_rate: float) -> list[Reason]:
    """Positive control not saturated (blind to copying) or negative control hitting: INVALID."""
    pos = (f"{controls.passages} corpus passages of {controls.passage_words} words: hit rate "
           f"{controls.positive_hit_rate:.2f}, shortest found run {controls.positive_min_found}, max "
           f"{controls.positive_max}")
    neg = (f"the same passages shuffled: hit rate {controls.negative_hit_rate:.2f} (at most "
           f"{negative_max_hit_rate:.2f} allowed), max {controls.negative_max}")
    return [
        Reason("memorization positive control", Gate.PASS if controls.saturated else Gate.INVALID,
               pos + (": saturated" if controls.saturated else
                      f": NOT saturated, the axis cannot see copying at n={n} (blind)")),
        Reason("memorization negative control", Gate.PASS if controls.negative_clean else Gate.INVALID,
               neg + (": clean" if controls.negative_clean else ": the index finds runs that are not there")),
    ]


def memorization_reason(arms: Mapping[str, ArmCopying], control: str, candidate: str, *,
                        hit_rate_margin: float, max_margin: int) -> Reason:
    """PASS when the candidate's hit rate and max are at or near the control's (within the plan's margins)."""
    if control not in arms or candidate not in arms:
        missing = control if control not in arms else candidate
        return Reason("memorization", Gate.INCOMPLETE, f"arm '{missing}' has no generations")
    c, k = arms[control], arms[candidate]
    rate_ok = k.hit_rate - c.hit_rate <= hit_rate_margin + 1e-12
    max_ok = k.max - c.max <= max_margin
    detail = (f"hit rate {candidate} {k.hit_rate:.3f} vs {control} {c.hit_rate:.3f} (margin "
              f"{hit_rate_margin:.3f}{'' if rate_ok else ', EXCEEDED'}); max {candidate} {k.max} vs "
              f"{control} {c.max} words (margin {max_margin}{'' if max_ok else ', EXCEEDED'})")
    return Reason("memorization", Gate.PASS if rate_ok and max_ok else Gate.FAIL, detail,
                  {"hit_rate_candidate": k.hit_rate, "hit_rate_control": c.hit_rate,
                   "hit_rate_margin": hit_rate_margin, "max_candidate": k.max, "max_control": c.max,
                   "max_margin": max_margin})


class CopyMeasured(Protocol):
    """What the axis's verdict reads of ``metrics.memorization.MemorizationReport``."""

    @property
    def n(self) -> int: ...
    @property
    def arms(self) -> Mapping[str, ArmCopying]: ...
    @property
    def controls(self) -> CopyControls: ...
    @property
    def control(self) -> str: ...
    @property
    def candidate(self) -> str: ...
    @property
    def hit_rate_margin(self) -> float: ...
    @property
    def max_margin(self) -> int: ...
    @property
    def negative_max_hit_rate(self) -> float: ...


def memorization_verdict(measured: CopyMeasured) -> Verdict:
    """Axis B's verdict: both controls' reasons and the margin rule, combined as every axis's are."""
    rule = memorization_reason(measured.arms, measured.control, measured.candidate,
                               hit_rate_margin=measured.hit_rate_margin, max_margin=measured.max_margin)
    return axis_verdict([*memorization_control_reasons(measured.controls, measured.n,
                                                       measured.negative_max_hit_rate), rule])
