"""An eval or live test end to end, as a one-arm plan: load inputs, generate through the one runner, score, gate."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends import BackendConfig
from forgegate.backends.preflight import preflight
from forgegate.battery import Battery, bundled_battery_path, bundled_live_test_path, load_battery
from forgegate.checks.loop_stop import loop_stop
from forgegate.core.match_rule import MATCH_RULE
from forgegate.gate.gloss_config import GateConfig, bundled_gate_config_path, parse_gate_config
from forgegate.jsonio import read_bytes_or_input_error, write_json_atomic
from forgegate.lineage.marks import marks_for
from forgegate.pipeline.format_followup import with_training_corpus
from forgegate.pipeline.gloss_scoring import ScoredRun, eval_result, record_last_gate, score_store
from forgegate.pipeline.session_options import SessionOptions
from forgegate.results import EvalResult
from forgegate.results.base import Strict
from forgegate.run import (
    ArmSpec,
    ExecutionSummary,
    PromptItem,
    RetryPolicy,
    SamplingSpec,
    StopFor,
    battery_prompt,
    generate,
    plan_requests,
)
from forgegate.store import RunMeta, StoredGateConfig, run_path, writable_store_dir


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
class SessionInputs:
    """An eval's inputs, each user file read once: what is hashed is what is parsed and what the store keeps."""

    spec: EvalSpec
    gate_config: GateConfig
    stored_gate_config: StoredGateConfig
    """The gate config as the store keeps it: its path, the sha256 of the bytes read and those same bytes."""

    @property
    def gate_sha(self) -> str:
        return self.stored_gate_config.sha256


@dataclass(frozen=True)
class SessionRun:
    """What one eval or live session gives back: the typed result, how the generation went, and the scored run
    (the store's answers and scores, which the training probe counts)."""

    result: EvalResult
    summary: ExecutionSummary
    scored: ScoredRun


def prepare_session(options: SessionOptions) -> SessionInputs:
    """Load and cross-check the files first (nothing runs on bad input; the options checked themselves when
    they were built): gate config, battery. The gate config's bytes are read once, then parsed, hashed and
    stored from that one read (a second read could see a file changed in between: a run whose stored config
    and sha disagree)."""
    gate_config_path = options.gate_config or bundled_gate_config_path()
    raw = read_bytes_or_input_error(gate_config_path, what="gate config")
    gate_config, gate_sha = parse_gate_config(raw, gate_config_path)
    stored = StoredGateConfig(path=str(gate_config_path), sha256=gate_sha, toml=raw.decode("utf-8"),
                              match_rule=MATCH_RULE)
    if options.kind == "live":
        battery = load_battery(options.battery or bundled_live_test_path())
    else:
        battery = load_battery(options.battery or bundled_battery_path(),
                               categories=gate_config.categories)
        gate_config.check_battery(battery)
    spec = EvalSpec(kind=options.kind, backend=options.backend, config=options.config, battery=battery,
                    seed=options.seed, temperature=options.temperature, top_p=options.top_p,
                    system=options.system)
    return SessionInputs(spec, gate_config, stored)


async def run_session_async(options: SessionOptions) -> SessionRun:
    """An eval or live test end to end: validate, generate through the one runner, score, gate; the typed
    result is what the CLI prints, the reports render and ``--json`` writes (its ``model_dump``)."""
    inputs = prepare_session(options)
    spec, gate_config = inputs.spec, inputs.gate_config
    store_dir = writable_store_dir(options.store)  # a store folder that cannot be used is named before any network
    # a dead server, a wrong path or a model the server lacks is bad input (exit 2), before a run file is made
    served = None if options.model_in_memory is not None else await preflight(spec.backend, spec.config)
    arm = spec.arm()
    prompts = {item.item_id: item.prompt for item in spec.battery.items}
    stop_for: StopFor | None = ((lambda planned: loop_stop(prompts[planned.item_id], gate_config.loops))
                                if options.loop_cutoff else None)
    outcome = await generate(
        run_path(spec.run_id, store_dir),
        identity=RunMeta.model_validate({**spec.identity(), "run_id": spec.run_id}),
        metadata=RunMeta(battery_path=str(spec.battery.path), base_urls=list(spec.config.base_urls),
                         gate_config=inputs.stored_gate_config,
                         loop_cutoff=options.loop_cutoff,
                         served_model=served.model_id if served is not None else None),
        arms=[arm], planned=plan_requests([arm], spec.items(), [spec.seed], spec.sampling()),
        concurrency=options.concurrency, quiet=options.quiet, retry=RetryPolicy(attempts=options.retries),
        per_arm_digests=False, wait=options.wait,
        made={EVAL_ARM: options.model_in_memory} if options.model_in_memory is not None else None,
        stop_for=stop_for)
    scored = score_store(outcome.store_path, spec.battery, gate_config, inputs.gate_sha,
                         check_failure_modes=options.check_failure_modes)
    record_last_gate(outcome.store_path, scored.gloss.verdict.gate)
    result = with_training_corpus(eval_result(scored), options.training_corpus)
    return SessionRun(_with_marks(result, outcome.store_path.parent), outcome.summary, scored)


def _with_marks(result: EvalResult, store_dir: Path) -> EvalResult:
    """The result with the versions the store's battery marks name for its battery (GLOSS v2's 'fix the eval')."""
    marks = marks_for(store_dir, result.battery.sha256)
    if not marks:
        return result
    versions = list(dict.fromkeys(m.version for m in marks))
    return result.model_copy(update={"battery": result.battery.model_copy(
        update={"marked_false_positive": versions})})


def run_session(options: SessionOptions) -> SessionRun:
    """``run_session_async`` from synchronous code (the CLI)."""
    return asyncio.run(run_session_async(options))


def write_result(result: Strict, path: Path | None) -> None:
    """The ``--json`` file: the result model's JSON contract (``model_dump``), nothing added or reshaped."""
    if path is not None:
        write_json_atomic(path, result.to_json())
