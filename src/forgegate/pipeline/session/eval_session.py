"""An eval or live test end to end, as a one-arm plan down the plan's road: the session's options become one
arm's requests (``generation.RunRequests``), generated and scored by the steps ``forgegate run`` takes."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends import BackendConfig
from forgegate.battery import Battery, bundled_live_test_path, load_battery
from forgegate.checks.loop_stop import loop_stop
from forgegate.core.samples import sample_seeds
from forgegate.core.sampling import identity_value
from forgegate.jsonio import write_json_atomic
from forgegate.lineage.marks import marks_for
from forgegate.pipeline.format_followup import with_training_corpus
from forgegate.pipeline.generation import RunRequests, generate_run
from forgegate.pipeline.gloss_inputs import GlossInputs, read_gate_config, read_gloss_battery
from forgegate.pipeline.gloss_scoring import ScoredRun, eval_result, score_gloss_arm
from forgegate.pipeline.session.options import SessionOptions
from forgegate.results import EvalResult
from forgegate.results.base import Strict
from forgegate.run import ArmSpec, ExecutionSummary, PromptItem, RetryPolicy, SamplingSpec, StopFor, battery_prompt
from forgegate.store import RunMeta


@dataclass(frozen=True)
class EvalSpec:
    """Everything that changes the answers of an eval run, and so its run id (paths are not in it:
    the same battery content resumes the same run wherever the file lies)."""

    kind: str  # "eval" or "live"
    backend: str
    config: BackendConfig
    battery: Battery
    seed: int
    temperature: float | None
    """None: not sent, the model's served sampling (GLOSS v2's procedure)."""
    top_p: float | None
    system: str | None

    def identity(self) -> dict[str, object]:
        """What names the run: an "as served" run (temperature and top_p None) is its own stable identity, and
        -0.0 is the same greedy run as 0.0 (``core.sampling.identity_value``)."""
        return {
            "kind": self.kind, "backend": self.backend, "model": self.config.model, "adapter": self.config.adapter,
            "battery_sha256": self.battery.sha256, "seed": self.seed,
            "temperature": identity_value(self.temperature), "top_p": identity_value(self.top_p),
            "system": self.system,
        }

    @property
    def run_id(self) -> str:
        """The run's id before its server is asked what it serves: :meth:`run_id_of` with no digest."""
        return self.run_id_of(None)

    def run_id_of(self, model_digest: str | None) -> str:
        """The run's id: a hash of :meth:`identity` and, where the server reports one, the model's digest (new
        weights under the same name are a new run, never a resume: issue 46). Without a digest the id is what it
        always was, so a store written before keeps resuming."""
        named = self.identity() | ({"model_digest": model_digest} if model_digest else {})
        digest = hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()
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
    gloss: GlossInputs


@dataclass(frozen=True)
class SessionRun:
    """What one eval or live session gives back: the typed result, how the generation went, and the scored run
    (the store's answers and scores, which the training probe counts)."""

    result: EvalResult
    summary: ExecutionSummary
    scored: ScoredRun


def prepare_session(options: SessionOptions) -> SessionInputs:
    """Load and cross-check the files first (nothing runs on bad input; the options checked themselves when
    they were built): gate config, battery, through the loaders a plan's gloss instrument uses."""
    gate = read_gate_config(options.gate_config)
    if options.kind == "live":
        battery = load_battery(options.battery or bundled_live_test_path())
    else:
        battery = read_gloss_battery(options.battery, gate.config)
    spec = EvalSpec(kind=options.kind, backend=options.backend, config=options.config, battery=battery,
                    seed=options.seed, temperature=options.temperature, top_p=options.top_p,
                    system=options.system)
    return SessionInputs(spec, GlossInputs(battery, gate, options.seed))


def session_requests(inputs: SessionInputs, options: SessionOptions) -> RunRequests:
    """The eval as a one-arm plan: arm ``model``, the battery as fixture (each item its own cap), one seed per
    sample (``core.samples``: sample 0 is the run's seed, so K = 1 is the spec's one request per item); its
    store is named by the spec's identity, and its record keeps the gate config whole and the loop cut-off."""
    spec = inputs.spec
    metadata = RunMeta(battery_path=str(spec.battery.path), base_urls=list(spec.config.base_urls),
                       gate_config=inputs.gloss.gate.stored, loop_cutoff=options.loop_cutoff,
                       samples=options.samples)
    return RunRequests.of(spec.run_id, options.store,
                          identity=RunMeta.model_validate({**spec.identity(), "run_id": spec.run_id}),
                          metadata=metadata, arms=[spec.arm()], items=spec.items(),
                          seeds=sample_seeds(spec.seed, options.samples),
                          sampling=spec.sampling(), per_arm_digests=False, probe_every_arm=True,
                          run_id_for=spec.run_id_of)


async def run_session_async(options: SessionOptions) -> SessionRun:
    """An eval or live test end to end, down the plan's road: generate (``generation.generate_run``), score
    (``gloss_scoring.score_gloss_arm``), gate; the typed result is what the CLI prints, the reports render and
    ``--json`` writes (its ``model_dump``)."""
    inputs = prepare_session(options)
    gloss = inputs.gloss
    prompts = {item.item_id: item.prompt for item in gloss.battery.items}
    stop_for: StopFor | None = ((lambda planned: loop_stop(prompts[planned.item_id], gloss.config.loops))
                                if options.loop_cutoff else None)
    stored = await generate_run(
        session_requests(inputs, options), concurrency=options.concurrency, quiet=options.quiet,
        wait=options.wait, retry=RetryPolicy(attempts=options.retries), stop_for=stop_for,
        made={EVAL_ARM: options.model_in_memory} if options.model_in_memory is not None else None)
    scored = score_gloss_arm(stored.store_path, gloss, EVAL_ARM, per_arm=False,
                             check_failure_modes=options.check_failure_modes)
    result = with_training_corpus(eval_result(scored), options.training_corpus)
    return SessionRun(_with_marks(result, stored.store_path.parent), stored.summary, scored)


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
