"""Every result kind, the union a reader validates against, and each kind's JSON Schema."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter

from forgegate.core.kinds import RESULT_KINDS
from forgegate.results.audit import ContaminationAuditResult, FormatAuditResult, LeakAuditResult, LoopAuditResult
from forgegate.results.battery_check import BatteryCheckResult
from forgegate.results.checkpoints import CheckpointTiesResult
from forgegate.results.comparison import ComparisonResult
from forgegate.results.damage import DamageResult
from forgegate.results.eval import EvalResult
from forgegate.results.fixture_build import FixtureBuildResult
from forgegate.results.graduation import GraduationResult
from forgegate.results.lineage_record import LineageRecord
from forgegate.results.memorization import MemorizationResult
from forgegate.results.plan_run import PlanRunResult
from forgegate.results.probe import ProbeRecord
from forgegate.results.semantic import SemanticMetricsResult
from forgegate.results.semantic_checks import SemanticRelevanceResult, SemanticValidationResult
from forgegate.results.voice import VoiceResult

ResultModel = (EvalResult | PlanRunResult | VoiceResult | MemorizationResult | DamageResult | SemanticMetricsResult
               | ComparisonResult | LineageRecord | ProbeRecord | LoopAuditResult | LeakAuditResult
               | FormatAuditResult | ContaminationAuditResult | CheckpointTiesResult | FixtureBuildResult
               | BatteryCheckResult | GraduationResult | SemanticRelevanceResult | SemanticValidationResult)
"""Every result model: what reading a result back gives (a type for annotations)."""
AnyResult = Annotated[ResultModel, Field(discriminator="kind")]
"""The same union, told apart by ``kind`` (what a reader validates against)."""

MODELS: dict[str, type[BaseModel]] = {
    "eval": EvalResult, "plan": PlanRunResult, "voice": VoiceResult, "memorization": MemorizationResult,
    "damage": DamageResult, "semantic": SemanticMetricsResult, "comparison": ComparisonResult,
    "lineage_record": LineageRecord, "probe": ProbeRecord, "loop_audit": LoopAuditResult,
    "leak_audit": LeakAuditResult, "format_audit": FormatAuditResult, "contamination_audit": ContaminationAuditResult,
    "checkpoint_ties": CheckpointTiesResult, "fixture_build": FixtureBuildResult,
    "battery_check": BatteryCheckResult, "graduation": GraduationResult,
    "semantic_relevance": SemanticRelevanceResult, "semantic_validation": SemanticValidationResult,
}
"""Schema name -> model (``live`` is the ``eval`` model with kind "live")."""

KINDS: tuple[str, ...] = RESULT_KINDS
"""Every value ``kind`` takes (the one list is ``forgegate.core.kinds``)."""


@cache
def result_adapter() -> TypeAdapter[ResultModel]:
    """One adapter for the union, built once (building it compiles every model's validator)."""
    return TypeAdapter(AnyResult)


def schema_name(kind: str) -> str:
    """The schema a kind is validated by: ``live`` shares ``eval``'s."""
    return "eval" if kind == "live" else kind


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one schema name (a key of ``MODELS``), as committed under docs/schema/."""
    return MODELS[name].model_json_schema(mode="validation")
