"""The loop rule of the GLOSS v2 gate: any response labelled IDENTITY_LOOP or RUNAWAY_LOOP fails it.

Invariant 3: "If any response exhibits the v9 failure pattern ... the question scores 0 AND the
failure is logged ... The model is flagged for immediate investigation — do NOT graduate." So one
looping answer fails the gate even where its category still scores >= 0.50, with or without
``--check-failure-modes``, and ``graduate`` refuses the run with the same reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from forgegate.core.modes import LOOP_MODES, FailureMode
from forgegate.core.verdict import Gate, Reason

LOOP_RULE_NAME = "no response loops"
_SHOWN = 8


def loop_reason(labelled: Iterable[tuple[str, Iterable[str]]]) -> Reason:
    """FAIL naming each looping item and its labels (``numbers["items"]`` lists them all), else PASS."""
    looped = [(item_id, sorted(LOOP_MODES & set(labels))) for item_id, labels in labelled]
    checked = len(looped)
    looped = [(item_id, labels) for item_id, labels in looped if labels]
    if not looped:
        return Reason(LOOP_RULE_NAME, Gate.PASS, f"no loop in {checked} response(s)",
                      {"loops": 0, "checked": checked})
    named = [f"{item_id} ({', '.join(labels)})" for item_id, labels in looped]
    more = f" and {len(named) - _SHOWN} more" if len(named) > _SHOWN else ""
    return Reason(LOOP_RULE_NAME, Gate.FAIL,
                  f"{len(looped)} looping response(s): {', '.join(named[:_SHOWN])}{more} (invariant 3: do NOT "
                  "graduate)",
                  {"loops": len(looped), "checked": checked,
                   "identity_loops": sum(FailureMode.IDENTITY_LOOP in labels for _, labels in looped),
                   "runaway_loops": sum(FailureMode.RUNAWAY_LOOP in labels for _, labels in looped),
                   "items": ", ".join(item_id for item_id, _ in looped)})
