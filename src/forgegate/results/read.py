"""What a report renders: a result JSON file as written (a stored run is re-scored by the pipeline first)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.errors import InputError
from forgegate.jsonio import read_text_or_input_error
from forgegate.results.kinds import detect_kind


@dataclass(frozen=True)
class ReportInput:
    payload: dict[str, Any]
    source: str
    created: str | None  # when the run was created, where the store says


def read_result_json(path: Path) -> ReportInput:
    """A result JSON any forgegate command wrote; bad JSON or an unknown shape is an InputError."""
    text = read_text_or_input_error(path)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"bad JSON: {exc.msg}", line=exc.lineno) from None
    detect_kind(payload, str(path))
    return ReportInput(payload, str(path), payload.get("created") if isinstance(payload.get("created"), str) else None)
