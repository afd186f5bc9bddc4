"""What a report renders: a result JSON file as written, or a stored GLOSS run re-scored from its store."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.errors import InputError, UsageError
from forgegate.jsonio import read_text_or_input_error
from forgegate.report.kinds import detect_kind


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


def rescore_run(run: str, *, store: Path | None, battery: Path | None, gate_config: Path | None) -> ReportInput:
    """A GLOSS eval or live run re-scored from its store (``forgegate rescore``'s own path; nothing generated)."""
    from forgegate.gloss.session import rescore_stored_run

    payload, _regated = rescore_stored_run(run, store_dir=store, battery_path=battery, gate_config_path=gate_config)
    created = payload.get("created")
    return ReportInput(payload, str(payload.get("run_id") or run), created if isinstance(created, str) else None)


def load_report_input(source: str, *, store: Path | None = None, battery: Path | None = None,
                      gate_config: Path | None = None) -> ReportInput:
    """``source`` is a result ``.json`` file, or a run id / unique prefix / ``.sqlite`` path of a stored run."""
    path = Path(source)
    if path.suffix.lower() == ".json" or (path.is_file() and path.suffix.lower() != ".sqlite"):
        if battery is not None or gate_config is not None:
            raise UsageError("--battery and --gate-config apply to a stored run, not to a result JSON "
                             "(a JSON is rendered as written)")
        return read_result_json(path)
    return rescore_run(source, store=store, battery=battery, gate_config=gate_config)
