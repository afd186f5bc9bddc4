"""One eval or live-test session end to end: load inputs, generate into the store, score, write JSON."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.backends import BackendConfig
from forgegate.battery import bundled_battery_path, bundled_live_test_path, load_battery
from forgegate.errors import UsageError
from forgegate.gate.gloss_config import bundled_gate_config_path, load_gate_config, parse_gate_config
from forgegate.gloss.runner import EvalSpec, generate_eval
from forgegate.gloss.scoring import EvalResult, result_json, score_store
from forgegate.jsonio import write_json_atomic
from forgegate.run.engine import ExecutionSummary, RetryPolicy
from forgegate.store import RunStore, find_run

REMOTE_BACKENDS = frozenset({"ollama", "openai"})


@dataclass(frozen=True)
class SessionOptions:
    kind: str  # "eval" | "live"
    backend: str
    config: BackendConfig
    battery_path: Path | None
    gate_config_path: Path | None
    seed: int
    temperature: float
    top_p: float
    system: str | None
    concurrency: int
    retries: int
    store_dir: Path | None
    quiet: bool


def run_session(options: SessionOptions) -> tuple[EvalResult, dict[str, Any], ExecutionSummary]:
    """Validate everything first (nothing runs on bad input), then generate, then score."""
    if options.backend in REMOTE_BACKENDS and not options.config.model:
        raise UsageError(f"--model is required with --backend {options.backend} (the label on every "
                         "result comes from it; there is no default)")
    if options.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    gate_config_path = options.gate_config_path or bundled_gate_config_path()
    gate_config, gate_sha = load_gate_config(gate_config_path)
    if options.kind == "live":
        battery = load_battery(options.battery_path or bundled_live_test_path())
    else:
        battery = load_battery(options.battery_path or bundled_battery_path(),
                               categories=gate_config.categories)
        gate_config.check_battery(battery.path, battery.categories(), len(battery.items))
    spec = EvalSpec(kind=options.kind, backend=options.backend, config=options.config, battery=battery,
                    seed=options.seed, temperature=options.temperature, top_p=options.top_p,
                    system=options.system)
    store_path, summary = generate_eval(spec, store_dir=options.store_dir, concurrency=options.concurrency,
                                        quiet=options.quiet, retry=RetryPolicy(attempts=options.retries))
    with RunStore.open(store_path, create=False) as store:  # rescore and report gate under the same config
        store.set_meta("gate_config", {"path": str(gate_config_path), "sha256": gate_sha,
                                       "toml": gate_config_path.read_text(encoding="utf-8")})
    result = score_store(store_path, battery, gate_config, gate_sha)
    return result, result_json(result), summary


def write_result(payload: dict[str, Any], path: Path | None) -> None:
    if path is not None:
        write_json_atomic(path, payload)


def rescore_stored_run(run: str, *, store_dir: Path | None, battery_path: Path | None,
                       gate_config_path: Path | None) -> tuple[dict[str, Any], str | None]:
    """Score a stored eval/live run again, under the gate config it was run with unless told otherwise.

    Returns the result JSON and, when ``gate_config_path`` re-gates the run under a config other
    than its own, a line saying so (printed and kept in the JSON as ``regated_from``).
    """
    path = find_run(run, store_dir)
    with RunStore.open(path, create=False) as opened:
        meta = opened.meta()
    kind = meta.get("kind")
    if kind not in ("eval", "live"):
        raise UsageError(f"run {path.stem} is a '{kind}' run, which this command cannot re-score: write its result "
                         "with --json (e.g. `forgegate run PLAN --json result.json`) and pass that file")
    stored = meta.get("gate_config")
    if gate_config_path is not None:
        config, sha = load_gate_config(gate_config_path)
    elif stored is not None:
        config, sha = parse_gate_config(stored["toml"].encode("utf-8"), f"{path.name} (stored gate config)")
    else:
        raise UsageError(f"run {path.stem} does not record its gate config: pass --gate-config")
    regated = None
    if stored is not None and stored["sha256"] != sha:
        regated = (f"re-gated under {config.name} (sha256 {sha[:12]}); the run was gated under "
                   f"{stored['path']} (sha256 {stored['sha256'][:12]})")
    battery = load_battery(battery_path or Path(meta["battery_path"]),
                           categories=None if kind == "live" else config.categories)
    if kind != "live":
        config.check_battery(battery.path, battery.categories(), len(battery.items))
    payload = result_json(score_store(path, battery, config, sha, record_gate=regated is None))
    if regated is not None:
        payload["regated_from"] = stored["sha256"] if stored else None
    return payload, regated
