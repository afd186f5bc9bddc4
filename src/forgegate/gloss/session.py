"""One eval or live-test session end to end: load inputs, generate into the store, score, write JSON."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.backends import BackendConfig
from forgegate.battery import bundled_battery_path, bundled_live_test_path, load_battery
from forgegate.errors import UsageError
from forgegate.gate.gloss_config import load_gate_config
from forgegate.gloss.runner import EvalSpec, generate_eval
from forgegate.gloss.scoring import EvalResult, result_json, score_store
from forgegate.jsonio import write_json_atomic
from forgegate.run.engine import ExecutionSummary, RetryPolicy

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
    gate_config, gate_sha = load_gate_config(options.gate_config_path)
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
    result = score_store(store_path, battery, gate_config, gate_sha)
    return result, result_json(result), summary


def write_result(payload: dict[str, Any], path: Path | None) -> None:
    if path is not None:
        write_json_atomic(path, payload)
