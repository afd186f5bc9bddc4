"""Which report section a result gets, decided by its model (``forgegate.results``), never by its keys."""

from __future__ import annotations

from typing import Any, Literal

from forgegate.errors import InputError
from forgegate.results import ComparisonResult, EvalResult, LineageRecord, parse_result
from forgegate.results.audit import AuditResult

Kind = Literal["gloss", "plan", "voice", "memorization", "damage", "semantic"]
"""A renderable result: ``gloss`` is a GLOSS eval or live test (one section for both)."""


def report_result(payload: Any, source: str = "result") -> tuple[Kind, Any, dict[str, Any]]:
    """(section kind, typed result, its JSON contract) for a result a report can render."""
    result = parse_result(payload, source)
    if isinstance(result, ComparisonResult | LineageRecord | AuditResult):
        raise InputError(source, f"a {result.kind} result: reports render eval, live, plan, voice, memorization, "
                         "damage and semantic metrics results",
                         hint="`forgegate compare`, `forgegate lineage show` and `forgegate audit` print their "
                         "own tables")
    kind: Kind = "gloss" if isinstance(result, EvalResult) else result.kind
    return kind, result, result.model_dump(mode="json")
