"""Scoring a stored eval or live run again, without generating: the road ``forgegate rescore``, ``compare`` on a
stored run and ``forgegate view`` take. It imports no backend and no runner (the import contract checks it).
"""

from __future__ import annotations

from pathlib import Path

from forgegate.battery import load_battery
from forgegate.core.match_rule import MATCH_RULE
from forgegate.errors import UsageError
from forgegate.pipeline.gloss_inputs import read_gate_config, read_gloss_battery, stored_gate_config
from forgegate.pipeline.gloss_scoring import eval_result, record_last_gate, score_store
from forgegate.results import EvalResult
from forgegate.store import RunStore, find_run


def rescore_stored_run(run: str, *, store_dir: Path | None, battery_path: Path | None,
                       gate_config_path: Path | None, check_failure_modes: bool = False
                       ) -> tuple[EvalResult, str | None]:
    """Score a stored eval/live run again, under the gate config it was run with unless told otherwise.

    Returns the typed result and, when the run is re-gated under a config other than its own (another
    ``gate_config_path``, or its own config under a newer matching rule), a line saying so (printed
    and kept in the JSON as ``regated_from``).
    """
    path = find_run(run, store_dir)
    with RunStore.open(path, readonly=True) as opened:
        meta = opened.meta()
    kind = meta.kind
    if kind not in ("eval", "live"):
        raise UsageError(f"run {path.stem} is a '{kind}' run, which this command cannot re-score: write its result "
                         "with --json (e.g. `forgegate run PLAN --json result.json`) and pass that file")
    stored = meta.gate_config
    if gate_config_path is not None:
        gate = read_gate_config(gate_config_path)
    elif stored is not None:
        gate = stored_gate_config(stored, f"{path.name} (stored gate config)")
    else:
        raise UsageError(f"run {path.stem} does not record its gate config: pass --gate-config")
    config, sha = gate.config, gate.sha256
    regated = None
    if stored is not None and stored.sha256 != sha:
        regated = (f"re-gated under {config.name} (sha256 {sha[:12]}); the run was gated under "
                   f"{stored.path} (sha256 {stored.sha256[:12]})")
        old_rule = stored.match_rule
        if old_rule != MATCH_RULE:
            regated += (f"; answers are now matched by rule {MATCH_RULE} (word-aware: 'no' is not found in "
                        f"'not'), the run was scored by rule {old_rule}")
    if battery_path is None and (meta.battery_path is None or not Path(meta.battery_path).is_file()):
        raise UsageError(f"run {path.stem} was generated from {meta.battery_path}, which is not there now: "
                         "pass --battery with the same battery (its sha256 is checked)")
    given = battery_path or Path(str(meta.battery_path))
    battery = load_battery(given) if kind == "live" else read_gloss_battery(given, config)
    scored = score_store(path, battery, config, sha, check_failure_modes=check_failure_modes)
    if regated is None:  # a run re-gated under another config must not overwrite its own verdict
        record_last_gate(path, scored.gloss.verdict.gate)
    regated_from = stored.sha256 if regated is not None and stored else None
    return eval_result(scored, regated_from=regated_from), regated
