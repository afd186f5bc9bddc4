"""Which report section a result gets, decided by its model (``forgegate.results``), never by its keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

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
from forgegate.results.battery_check import BatteryCheckResult
from forgegate.results.checkpoints import CheckpointTiesResult
from forgegate.results.fixture_build import FixtureBuildResult
from forgegate.results.graduation import GraduationResult
from forgegate.results.semantic_checks import SemanticRelevanceResult, SemanticValidationResult

Kind = Literal["gloss", "plan", "voice", "memorization", "damage", "semantic"]
"""A renderable result: ``gloss`` is a GLOSS eval or live test (one section for both)."""


Renderable = EvalResult | PlanRunResult | VoiceResult | MemorizationResult | DamageResult | SemanticMetricsResult
"""The results a report renders (each has a section and a gate word)."""


def renderable(result: ResultModel, source: str = "result") -> Renderable:
    """``result`` if a report can render it; an InputError saying where its kind is shown instead if not."""
    if isinstance(result, ComparisonResult | LineageRecord | ProbeRecord | AuditResult | CheckpointTiesResult
                  | FixtureBuildResult | BatteryCheckResult | GraduationResult | SemanticRelevanceResult
                  | SemanticValidationResult):
        raise InputError(source, f"a {result.kind} result: reports render eval, live, plan, voice, memorization, "
                         "damage and semantic metrics results",
                         hint="`forgegate compare`, `forgegate lineage show`, `forgegate watch --once`, "
                              "`forgegate audit`, `forgegate checkpoints`, `forgegate fixture build`, "
                              "`forgegate battery check`, `forgegate graduate`, `forgegate semantic relevance` and "
                              "`forgegate semantic validate` print their own tables")
    return result


ReportSource = ResultModel | Mapping[str, Any]
"""What a renderer takes: the typed result the pipeline returned, or a result file's JSON object (validated
into its model first, the one place a report reads JSON); a kind no report renders is refused by ``renderable``."""


def report_result(result: ReportSource, source: str = "result") -> tuple[Kind, Renderable]:
    """(section kind, typed result) for a result a report can render."""
    typed = renderable(result if isinstance(result, BaseModel) else parse_result(result, source), source)
    kind: Kind = "gloss" if isinstance(typed, EvalResult) else typed.kind
    return kind, typed
