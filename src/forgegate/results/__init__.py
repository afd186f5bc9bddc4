"""Result models: what every gating command writes (the JSON contract) and how a reader gets it back.

One pydantic model per kind, each with ``kind`` and ``schema_version`` (``SCHEMA_VERSION``);
writers build the model and dump it, readers validate through ``parse_result`` (the union
``AnyResult``, discriminated by ``kind``). docs/schema/<kind>.json is each model's JSON Schema.

The names below are imported when first used: an eval needs its own model, not the union of every kind
(whose pydantic classes take a third of a server eval's start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.results.base import SCHEMA_VERSION, Gated, ReasonModel, reason_models
    from forgegate.results.comparison import ComparisonResult
    from forgegate.results.damage import DamageAxis, DamageResult
    from forgegate.results.eval import EvalBody, EvalItem, EvalResult, PlanArmGloss
    from forgegate.results.kinds import KINDS, MODELS, AnyResult, ResultModel, json_schema, result_adapter, schema_name
    from forgegate.results.legacy import upgrade_legacy
    from forgegate.results.lineage_record import AcceptedRegression, LineageRecord, RecordedItem
    from forgegate.results.memorization import MemorizationAxis, MemorizationResult
    from forgegate.results.plan_run import ComparisonEntry, PlanGloss, PlanRunResult, PlanSemantic
    from forgegate.results.probe import ProbeRecord
    from forgegate.results.read import ReportInput, load_json, parse_as, parse_result, read_result_json
    from forgegate.results.semantic import PlanSemanticMetrics, SemanticMetricsBody, SemanticMetricsResult
    from forgegate.results.voice import VoiceAxis, VoiceResult

_HOME: dict[str, str] = {
    "SCHEMA_VERSION": "forgegate.results.base",
    "Gated": "forgegate.results.base",
    "ReasonModel": "forgegate.results.base",
    "reason_models": "forgegate.results.base",
    "ComparisonResult": "forgegate.results.comparison",
    "DamageAxis": "forgegate.results.damage",
    "DamageResult": "forgegate.results.damage",
    "EvalBody": "forgegate.results.eval",
    "EvalItem": "forgegate.results.eval",
    "EvalResult": "forgegate.results.eval",
    "PlanArmGloss": "forgegate.results.eval",
    "KINDS": "forgegate.results.kinds",
    "MODELS": "forgegate.results.kinds",
    "AnyResult": "forgegate.results.kinds",
    "ResultModel": "forgegate.results.kinds",
    "json_schema": "forgegate.results.kinds",
    "result_adapter": "forgegate.results.kinds",
    "schema_name": "forgegate.results.kinds",
    "upgrade_legacy": "forgegate.results.legacy",
    "AcceptedRegression": "forgegate.results.lineage_record",
    "LineageRecord": "forgegate.results.lineage_record",
    "RecordedItem": "forgegate.results.lineage_record",
    "MemorizationAxis": "forgegate.results.memorization",
    "MemorizationResult": "forgegate.results.memorization",
    "ComparisonEntry": "forgegate.results.plan_run",
    "PlanGloss": "forgegate.results.plan_run",
    "PlanRunResult": "forgegate.results.plan_run",
    "PlanSemantic": "forgegate.results.plan_run",
    "ProbeRecord": "forgegate.results.probe",
    "ReportInput": "forgegate.results.read",
    "load_json": "forgegate.results.read",
    "parse_as": "forgegate.results.read",
    "parse_result": "forgegate.results.read",
    "read_result_json": "forgegate.results.read",
    "PlanSemanticMetrics": "forgegate.results.semantic",
    "SemanticMetricsBody": "forgegate.results.semantic",
    "SemanticMetricsResult": "forgegate.results.semantic",
    "VoiceAxis": "forgegate.results.voice",
    "VoiceResult": "forgegate.results.voice",
}

__all__ = [
    "KINDS", "MODELS", "SCHEMA_VERSION", "AcceptedRegression", "AnyResult", "ComparisonEntry",
    "ComparisonResult", "DamageAxis", "DamageResult", "EvalBody", "EvalItem", "EvalResult", "Gated",
    "LineageRecord", "MemorizationAxis", "MemorizationResult", "PlanArmGloss", "PlanGloss", "PlanRunResult",
    "PlanSemantic", "PlanSemanticMetrics", "ProbeRecord", "ReasonModel", "RecordedItem", "ReportInput", "ResultModel",
    "SemanticMetricsBody", "SemanticMetricsResult", "VoiceAxis", "VoiceResult", "json_schema", "load_json",
    "parse_as", "parse_result", "read_result_json", "reason_models", "result_adapter", "schema_name", "upgrade_legacy",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
