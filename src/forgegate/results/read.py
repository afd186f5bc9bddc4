"""Reading a result back: JSON -> the model of its kind (``kind`` decides), or an InputError that says why.

A result without ``schema_version`` was written before results were versioned and is
upgraded once (``forgegate.results.legacy``); a version this forgegate does not know is
refused with how to regenerate it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_text_or_input_error, validation_to_input_error
from forgegate.results.base import SCHEMA_VERSION, schema_version_of
from forgegate.results.kinds import KINDS, ResultModel, result_adapter
from forgegate.results.legacy import REGENERATE, upgrade_legacy, upgrade_v1

M = TypeVar("M", bound=BaseModel)


def parse_result(payload: Any, source: str | Path = "result") -> ResultModel:
    """The typed result a JSON object is (one of ``AnyResult``, told apart by ``kind``)."""
    where = str(source)
    if not isinstance(payload, dict):
        raise InputError(where, f"expected a JSON object, got {type(payload).__name__}")
    if "schema_version" not in payload:
        payload = upgrade_legacy(payload, where)
    if payload.get("kind") not in KINDS:
        raise InputError(where, f"kind {payload.get('kind')!r} is not one of {', '.join(KINDS)}", field="kind",
                         hint=REGENERATE)
    payload = upgrade_v1(payload)
    wanted = schema_version_of(payload.get("kind"))
    if payload["schema_version"] != wanted:
        older = f" (or {SCHEMA_VERSION}, upgraded on reading)" if wanted != SCHEMA_VERSION else ""
        raise InputError(where, f"schema_version {payload['schema_version']!r}: this forgegate reads version "
                         f"{wanted}{older} of a {payload.get('kind')!r} result", field="schema_version",
                         hint=REGENERATE)
    try:
        return result_adapter().validate_python(payload)
    except ValidationError as exc:
        error = validation_to_input_error(Path(where), None, exc)
        tag = f"{payload['kind']}."
        if error.field and error.field.startswith(tag):  # the union's discriminator value heads the path
            error.field = error.field.removeprefix(tag)
        error.hint = f"not a valid {payload['kind']} result: {REGENERATE}"
        raise error from None


def parse_as(model: type[M], payload: Any, source: str | Path = "result") -> M:
    """``parse_result``, refusing any kind but ``model``'s (e.g. a plan run handed to ``compare``)."""
    result = parse_result(payload, source)
    if not isinstance(result, model):
        raise InputError(str(source), f"a {result.kind} result, not the {model.__name__} expected here",
                         field="kind")
    return result


def load_json(path: Path, hint: str | None = None) -> Any:
    """A JSON file's content; unreadable or bad JSON is an InputError naming file and line.

    Read with the project's strict reader: deep nesting, 5,000-digit numbers, a repeated key and NaN or
    Infinity (a result's numbers decide a verdict) are refused, never a traceback.
    """
    text = read_text_or_input_error(path, hint=hint) if hint else read_text_or_input_error(path)
    try:
        return parse_json_strict(text, finite=True)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"bad JSON: {exc.msg}", line=exc.lineno) from None
    except JsonProblem as exc:
        raise InputError(path, exc.message, field=exc.field, hint=exc.hint) from None


@dataclass(frozen=True)
class ReportInput:
    """A result to render: the typed result, where it came from, when the run was created (if known)."""

    result: ResultModel
    source: str
    created: str | None


def read_result_json(path: Path) -> ReportInput:
    """A result JSON any forgegate command wrote, validated by its kind's model."""
    result = parse_result(load_json(Path(path)), path)
    created = getattr(result, "created", None)
    return ReportInput(result, str(path), created if isinstance(created, str) else None)
