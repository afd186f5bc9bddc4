"""Result models: what every gating command writes (the JSON contract) and how a reader gets it back.

One pydantic model per kind, each with ``kind`` and ``schema_version`` (``SCHEMA_VERSION``);
writers build the model and dump it, readers validate through ``parse_result`` (the union
``AnyResult``, discriminated by ``kind``). docs/schema/<kind>.json is each model's JSON Schema.
"""

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

__all__ = [
    "KINDS", "MODELS", "SCHEMA_VERSION", "AcceptedRegression", "AnyResult", "ComparisonEntry",
    "ComparisonResult", "DamageAxis", "DamageResult", "EvalBody", "EvalItem", "EvalResult", "Gated",
    "LineageRecord", "MemorizationAxis", "MemorizationResult", "PlanArmGloss", "PlanGloss", "PlanRunResult",
    "PlanSemantic", "PlanSemanticMetrics", "ProbeRecord", "ReasonModel", "RecordedItem", "ReportInput", "ResultModel",
    "SemanticMetricsBody", "SemanticMetricsResult", "VoiceAxis", "VoiceResult", "json_schema", "load_json",
    "parse_as", "parse_result", "read_result_json", "reason_models", "result_adapter", "schema_name", "upgrade_legacy",
]
