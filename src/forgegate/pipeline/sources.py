"""Where an eval result comes from when a command is given a name: a result JSON file, or a stored run re-scored."""

from __future__ import annotations

from pathlib import Path

from forgegate.lineage import RunResult, load_result, parse_result
from forgegate.pipeline.eval_session import rescore_stored_run


def eval_run_result(source: str | Path, store: Path | None = None) -> RunResult:
    """``source`` as an eval result: a ``.json`` file as written, or a stored run (id, unique prefix or
    ``.sqlite`` path) re-scored under the gate config it was run with."""
    if Path(source).suffix == ".json":
        return load_result(Path(source))
    payload, _ = rescore_stored_run(str(source), store_dir=store, battery_path=None, gate_config_path=None)
    return parse_result(payload, str(source))
