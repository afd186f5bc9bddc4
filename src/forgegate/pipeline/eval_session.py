"""An eval or live test end to end, as a one-arm plan: load inputs, generate through the one runner, score, gate."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.backends import Backend, BackendConfig
from forgegate.backends.names import REMOTE_BACKENDS
from forgegate.battery import Battery, bundled_battery_path, bundled_live_test_path, load_battery
from forgegate.core.match_rule import MATCH_RULE
from forgegate.errors import UsageError
from forgegate.gate.gloss_config import GateConfig, bundled_gate_config_path, load_gate_config
from forgegate.jsonio import write_json_atomic
from forgegate.pipeline.gloss_scoring import ScoredRun, result_json, score_store
from forgegate.run import (
    ArmSpec,
    ExecutionSummary,
    PromptItem,
    RetryPolicy,
    SamplingSpec,
    battery_prompt,
    generate,
    plan_requests,
)
from forgegate.store import run_path, writable_store_dir


@dataclass(frozen=True)
class EvalSpec:
    """Everything that changes the answers of an eval run, and so its run id (paths are not in it:
    the same battery content resumes the same run wherever the file lies)."""

    kind: str  # "eval" or "live"
    backend: str
    config: BackendConfig
    battery: Battery
    seed: int
    temperature: float
    top_p: float
    system: str | None

    def identity(self) -> dict[str, object]:
        return {
            "kind": self.kind, "backend": self.backend, "model": self.config.model, "adapter": self.config.adapter,
            "battery_sha256": self.battery.sha256, "seed": self.seed, "temperature": self.temperature,
            "top_p": self.top_p, "system": self.system,
        }

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()
        return f"{self.kind}-{digest[:12]}"

    def arm(self) -> ArmSpec:
        return ArmSpec(EVAL_ARM, self.backend, self.config)

    def items(self) -> list[PromptItem]:
        return [battery_prompt(i) for i in self.battery.items]

    def sampling(self) -> SamplingSpec:
        return SamplingSpec(temperature=self.temperature, top_p=self.top_p, system=self.system)


EVAL_ARM = "model"
"""An eval is a one-arm plan; its arm is called ``model``."""


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
    check_failure_modes: bool = False
    wait: bool = True
    """Wait for another process generating the same run (False: refuse at once)."""
    model_in_memory: Backend | None = None
    """A backend over a model the caller holds (the training probe); ``backend`` then only labels it."""


def prepare_session(options: SessionOptions) -> tuple[EvalSpec, GateConfig, str, Path]:
    """Validate everything first (nothing runs on bad input): options, gate config, battery."""
    if options.backend in REMOTE_BACKENDS and not options.config.model:
        raise UsageError(f"--model is required with --backend {options.backend} (the label on every "
                         "result comes from it; there is no default)")
    if options.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if options.retries < 1:
        raise UsageError("--retries must be at least 1 (the first attempt counts)")
    if problems := options.config.problems():
        raise UsageError(problems[0])
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
    return spec, gate_config, gate_sha, gate_config_path


async def run_session_async(options: SessionOptions) -> tuple[ScoredRun, dict[str, Any], ExecutionSummary]:
    """An eval or live test end to end: validate, generate through the one runner, score, gate."""
    spec, gate_config, gate_sha, gate_config_path = prepare_session(options)
    arm = spec.arm()
    outcome = await generate(
        run_path(spec.run_id, writable_store_dir(options.store_dir)),
        identity={**spec.identity(), "run_id": spec.run_id},
        metadata={"battery_path": str(spec.battery.path), "base_urls": list(spec.config.base_urls),
                  "gate_config": {"path": str(gate_config_path), "sha256": gate_sha,
                                  "toml": gate_config_path.read_text(encoding="utf-8"),
                                  "match_rule": MATCH_RULE}},
        arms=[arm], planned=plan_requests([arm], spec.items(), [spec.seed], spec.sampling()),
        concurrency=options.concurrency, quiet=options.quiet, retry=RetryPolicy(attempts=options.retries),
        per_arm_digests=False, wait=options.wait,
        made={EVAL_ARM: options.model_in_memory} if options.model_in_memory is not None else None)
    result = score_store(outcome.store_path, spec.battery, gate_config, gate_sha,
                         check_failure_modes=options.check_failure_modes)
    return result, result_json(result), outcome.summary


def run_session(options: SessionOptions) -> tuple[ScoredRun, dict[str, Any], ExecutionSummary]:
    """``run_session_async`` from synchronous code (the CLI)."""
    return asyncio.run(run_session_async(options))


def write_result(payload: dict[str, Any], path: Path | None) -> None:
    if path is not None:
        write_json_atomic(path, payload)
