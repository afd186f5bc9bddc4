"""Which forgegate result a JSON document is (GLOSS eval, plan run, one arm axis, T_GPT metrics)."""

from __future__ import annotations

from typing import Any, Literal

from forgegate.core.verdict import Gate
from forgegate.errors import InputError

Kind = Literal["gloss", "plan", "voice", "memorization", "damage", "semantic"]
ARM_AXES: tuple[Kind, ...] = ("voice", "memorization", "damage")


def detect_kind(payload: Any, source: str = "result") -> Kind:
    """The kind of ``payload``, from the keys its writer always puts there; anything else is an InputError."""
    if not isinstance(payload, dict):
        raise InputError(source, f"expected a JSON object, got {type(payload).__name__}")
    gate = payload.get("gate")
    if gate not in {g.value for g in Gate}:
        raise InputError(source, f"no valid 'gate' word ({gate!r}): not a forgegate result", field="gate",
                         hint="give the --json file written by eval, live, rescore, run, voice, memorization, "
                              "damage or semantic metrics, or a run id")
    if str(payload.get("schema", "")).startswith("T_GPT_METRICS"):
        return "semantic"
    if "comparisons" in payload and "plan" in payload:
        return "plan"
    if "categories" in payload and "items" in payload:
        return "gloss"
    if "author" in payload and "arms" in payload and "controls" in payload:
        return "voice"
    if "positive_control" in payload and "arms" in payload:
        return "memorization"
    if "metrics" in payload and "band" in payload:
        return "damage"
    raise InputError(source, "a gate word but no known result shape (GLOSS eval, plan run, voice, memorization, "
                     "damage or T_GPT metrics)", hint="the report renders results forgegate wrote, unchanged")
