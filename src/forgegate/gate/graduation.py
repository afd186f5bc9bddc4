"""The graduation rules: battery and live test PASS, GLOSS v2 gate, no loop, no v9 signature, no unaccepted regression.

GLOSS v2's VERIFICATION CRITERIA are one procedure: the battery, "After battery PASS, run 10 live crew
communication tasks", and "Before graduation ... --check-failure-modes ... Expected: all v9 failure mode
signatures absent". So the signature rule is always one of graduation's reasons, and a live test that was not
run (the battery did not PASS) is a reason too.

``forgegate.lineage.graduation`` measures (reads the results, pairs the runs, appends the
record); this module decides: it turns those measurements into the reasons and their words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from forgegate.core.gloss_v2 import GLOSS_V2_CATEGORIES, GLOSS_V2_TITLE, MIN_CATEGORY_FLOOR, MIN_SIGMA_TOTAL
from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.loop_rule import loop_reason
from forgegate.gate.signatures import signature_reason

GLOSS_V2_RULE = "gate is GLOSS v2"


@dataclass(frozen=True)
class GateUsed:
    """The gate config a battery result was gated under, as the result records it."""

    name: str
    gloss_v2: bool | None
    """None: a result written before forgegate recorded it (then the recorded numbers are checked)."""
    category_floor: float
    sigma_total_min: float
    categories: tuple[str, ...]


@dataclass(frozen=True)
class RegressionFound:
    name: str
    detail: str


@dataclass(frozen=True)
class GraduationRules:
    verdict: Verdict
    regressions: tuple[str, ...]
    accepted: tuple[str, ...]
    """The regressions graduated despite, each named with ``--accept-regression`` (and the note)."""


def _outcome(gate: Gate) -> Gate:
    """A component's gate as a reason outcome: anything short of PASS that is not INCOMPLETE/INVALID fails."""
    return gate if gate in (Gate.PASS, Gate.INCOMPLETE, Gate.INVALID) else Gate.FAIL


def gloss_v2_reason(gate: GateUsed) -> Reason:
    """Only a GLOSS v2 gate graduates: a config that declared otherwise, or (in an older result) recorded
    numbers under the invariants, is refused."""
    numbers = {"gate_config": gate.name, "gloss_v2": gate.gloss_v2}
    if gate.gloss_v2 is False:
        return Reason(GLOSS_V2_RULE, Gate.FAIL, f"gate config '{gate.name}' declares gloss_v2 = false: its "
                      f"results are not {GLOSS_V2_TITLE} and do not graduate", numbers)
    # gloss_v2 True was written after the config passed every invariant (forgegate.gate.gloss_v2); an older
    # result (None) is checked on what it recorded: its categories, floor and sigma minimum
    problems = [] if gate.gloss_v2 else [f"no {c}" for c in GLOSS_V2_CATEGORIES if c not in gate.categories]
    if gate.category_floor < MIN_CATEGORY_FLOOR:
        problems.append(f"category floor {gate.category_floor:g} < {MIN_CATEGORY_FLOOR:.2f}")
    if gate.sigma_total_min < MIN_SIGMA_TOTAL:
        problems.append(f"sigma_total minimum {gate.sigma_total_min:g} < {MIN_SIGMA_TOTAL:.2f}")
    if problems:
        return Reason(GLOSS_V2_RULE, Gate.FAIL, f"gate config '{gate.name}' breaks GLOSS v2's invariants: "
                      + "; ".join(problems[:4]), numbers)
    return Reason(GLOSS_V2_RULE, Gate.PASS, f"gate config '{gate.name}' keeps GLOSS v2's invariants", numbers)


def _live_reason(live_gate: Gate | None, battery_gate: Gate) -> Reason:
    if live_gate is not None:
        return Reason("live-test", _outcome(live_gate), f"live functional test gate {live_gate.value}")
    return Reason("live-test", _outcome(battery_gate) if battery_gate != Gate.PASS else Gate.INCOMPLETE,
                  "live functional test not run: GLOSS v2 runs it 'After battery PASS', and the battery gate was "
                  f"{battery_gate.value}")


def graduation_rules(
    *,
    battery_gate: Gate,
    sigma_total: float | None,
    failed_categories: Sequence[str],
    live_gate: Gate | None,
    gate_used: GateUsed,
    labelled_items: Iterable[tuple[str, Iterable[str]]],
    baseline_why: str,
    compared: bool,
    regressions: Sequence[RegressionFound],
    comparison_reasons: Sequence[Reason],
    accept_regressions: Sequence[str],
    note: str | None,
    battery_trust: Reason,
    signatures: Mapping[str, bool | None],
) -> GraduationRules:
    """Every rule of graduation as a Reason, and the word they decide.

    ``labelled_items`` are (item id, failure labels) of the battery and the live test (live ids
    prefixed "live:"): one loop anywhere refuses graduation (invariant 3). ``compared`` False: no
    comparable graduated version, ``baseline_why`` says why. A regression graduates only when it is
    named in ``accept_regressions`` (the caller requires ``note`` for that). ``battery_trust`` is
    ``forgegate.gate.battery_trust.battery_trust_reason`` on the lineage (GLOSS v2's "fix the eval").
    ``signatures`` (``checks.signatures.signatures_present`` over both runs' items and the battery's LX-STOP
    distribution) is always judged: one v9 signature present refuses graduation, by the spec's definition
    (one capped answer is not STOP_FAILURE's "Every response runs to exactly max_tokens"; it fails its item).
    ``live_gate`` None: the live test was not run (the battery did not PASS).
    """
    reasons: list[Reason] = [
        Reason("battery-gate", _outcome(battery_gate),
               f"battery gate {battery_gate.value}, sigma_total="
               + ("n/a" if sigma_total is None else f"{sigma_total:.3f}")
               + (f", failed categories: {', '.join(failed_categories)}" if failed_categories else "")),
        _live_reason(live_gate, battery_gate),
        gloss_v2_reason(gate_used),
        loop_reason(labelled_items),
        signature_reason(signatures),
    ]
    if battery_gate == Gate.PASS and live_gate == Gate.FAIL:
        reasons.append(Reason(FailureMode.EVAL_FALSE_POSITIVE, Gate.FAIL,
                              "the battery passed but the live test failed: the battery does not predict "
                              "live behaviour; fix the eval before the next forge"))
    reasons.append(battery_trust)
    found: list[str] = []
    accepted: list[str] = []
    if not compared:
        reasons.append(Reason("regression-check", Gate.PASS, baseline_why))
    else:
        reasons.append(Reason("regression-baseline", Gate.PASS, baseline_why))
        for reg in regressions:
            found.append(reg.name)
            if reg.name in accept_regressions:
                accepted.append(reg.name)
                reasons.append(Reason("accepted-regression:" + reg.name, Gate.PASS, f"{reg.detail}; accepted: {note}"))
            else:
                reasons.append(Reason("regression:" + reg.name, Gate.FAIL,
                                      f"{reg.detail} (name it with --accept-regression {reg.name} --note ... "
                                      "to graduate anyway)"))
        reasons.extend(r for r in comparison_reasons if r.outcome in (Gate.INCOMPLETE, Gate.INVALID))
    return GraduationRules(Verdict.combine(reasons), tuple(found), tuple(accepted))
