"""Which report section a result gets, decided by its model (``forgegate.results``), never by its keys."""

from __future__ import annotations

from typing import Any, Literal

from forgegate.errors import InputError
from forgegate.results import (
    ComparisonResult,
    DamageResult,
    EvalResult,
    LineageRecord,
    MemorizationResult,
    PlanRunResult,
    ProbeRecord,
    ResultModel,
    SemanticMetricsResult,
    VoiceResult,
    parse_result,
)
from forgegate.results.audit import AuditResult

Kind = Literal["gloss", "plan", "voice", "memorization", "damage", "semantic"]
"""A renderable result: ``gloss`` is a GLOSS eval or live test (one section for both)."""


Renderable = EvalResult | PlanRunResult | VoiceResult | MemorizationResult | DamageResult | SemanticMetricsResult
"""The results a report renders (each has a section and a gate word)."""


def renderable(result: ResultModel, source: str = "result") -> Renderable:
    """``result`` if a report can render it; an InputError saying where its kind is shown instead if not."""
    if isinstance(result, ComparisonResult | LineageRecord | ProbeRecord | AuditResult):
        raise InputError(source, f"a {result.kind} result: reports render eval, live, plan, voice, memorization, "
                         "damage and semantic metrics results",
                         hint="`forgegate compare`, `forgegate lineage show`, `forgegate watch --once` and "
                              "`forgegate audit` print their own tables")
    return result


def report_result(payload: Any, source: str = "result") -> tuple[Kind, Renderable, dict[str, Any]]:
    """(section kind, typed result, its JSON contract) for a result a report can render."""
    result = renderable(parse_result(payload, source), source)
    kind: Kind = "gloss" if isinstance(result, EvalResult) else result.kind
    return kind, result, result.model_dump(mode="json")
