"""Where a result comes from when a command is given a name: a result JSON file as written, or a stored
GLOSS run re-scored from its store under the gate config it was run with (nothing is generated)."""

from __future__ import annotations

from pathlib import Path

from forgegate.errors import UsageError
from forgegate.lineage import RunScores, load_run_scores, parse_run_scores
from forgegate.pipeline.session.rescore import rescore_stored_run
from forgegate.results.read import ReportInput, read_result_json


def is_result_file(source: str | Path) -> bool:
    """A ``.json`` file (or any existing file that is not a run's ``.sqlite``), rather than a stored run's name."""
    path = Path(source)
    return path.suffix.lower() == ".json" or (path.is_file() and path.suffix.lower() != ".sqlite")


def eval_run_scores(source: str | Path, store: Path | None = None) -> RunScores:
    """``source`` as an eval result for pairing: a result file, or a stored run (id, unique prefix or
    ``.sqlite`` path) re-scored."""
    if is_result_file(source):
        return load_run_scores(Path(source))
    result, _ = rescore_stored_run(str(source), store_dir=store, battery_path=None, gate_config_path=None)
    return parse_run_scores(result, str(source))


def load_report_input(source: str, *, store: Path | None = None, battery: Path | None = None,
                      gate_config: Path | None = None) -> ReportInput:
    """``source`` as a report's input: a result file of any kind, or a stored eval or live run re-scored
    (``--battery`` / ``--gate-config`` apply to the latter only)."""
    if is_result_file(source):
        if battery is not None or gate_config is not None:
            raise UsageError("--battery and --gate-config apply to a stored run, not to a result JSON "
                             "(a JSON is rendered as written)")
        return read_result_json(Path(source))
    result, _ = rescore_stored_run(source, store_dir=store, battery_path=battery, gate_config_path=gate_config)
    return ReportInput(result, result.run_id or source, result.created)
