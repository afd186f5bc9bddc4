"""Where a report's result comes from: a result JSON as written, or a stored GLOSS run re-scored from its store."""

from __future__ import annotations

from pathlib import Path

from forgegate.errors import UsageError
from forgegate.pipeline.eval_session import rescore_stored_run
from forgegate.results import EvalResult, parse_as
from forgegate.results.read import ReportInput, read_result_json


def rescore_run(run: str, *, store: Path | None, battery: Path | None, gate_config: Path | None) -> ReportInput:
    """A GLOSS eval or live run re-scored from its store (``forgegate rescore``'s own path; nothing generated)."""
    payload, _regated = rescore_stored_run(run, store_dir=store, battery_path=battery, gate_config_path=gate_config)
    result = parse_as(EvalResult, payload, run)
    return ReportInput(result, result.run_id or run, result.created)


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
