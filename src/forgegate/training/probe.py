"""One probe: the probe battery through a model (in memory or through a backend), summarised as a ProbeRecord.

A probe is an ordinary eval (the one runner, the run store, the GLOSS scorer with the loop
detector's controls) of the bundled training probe (``gloss-v2-probe.jsonl``) under its own gate
(``gloss-v2-probe.toml``), greedy, so two probes of the same weights give the same answers. What
training needs from it is counted here: loops, stop failures, walls broken, accuracy.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from forgegate.backends import Backend
from forgegate.battery import bundled_probe_battery_path
from forgegate.battery.resources import bundled_probe_gate_config_path
from forgegate.core.modes import LOOP_MODES, FailureMode
from forgegate.core.rules import is_control_rule
from forgegate.core.verdict import Gate
from forgegate.core.version import __version__
from forgegate.pipeline.gloss_scoring import ScoredRun, eval_result
from forgegate.pipeline.session.eval_session import run_session_async
from forgegate.pipeline.session.options import SessionOptions
from forgegate.results import SCHEMA_VERSION, ProbeRecord
from forgegate.results.probe import ProbeSource
from forgegate.training.stopping import TEST_WORDS


@dataclass(frozen=True)
class ProbeArm:
    """Which model answers a probe through a backend (watch): a checkpoint folder, or an adapter on its base."""

    model: str
    adapter: str | None = None
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    base_urls: tuple[str, ...] = ()
    """A serving backend's endpoints (watch --backend vllm|openai): the checkpoint is served there by name."""
    api_key_env: str | None = None


@dataclass(frozen=True)
class ProbeTarget:
    """What to probe and where it stands in training."""

    step: int
    epoch: float | None
    checkpoint: str | None
    eval_loss: float | None
    source: ProbeSource


async def probe_async(target: ProbeTarget, *, label: str, store_dir: Path, backend: str = "in-memory",
                      arm: ProbeArm | None = None, model_in_memory: Backend | None = None,
                      battery: Path | None = None, concurrency: int = 16) -> ProbeRecord:
    """Run the probe battery (the bundled one unless ``battery``) and summarise it.

    Either ``model_in_memory`` (the callback: the trainer's model) or ``backend`` + ``arm`` (watch:
    a checkpoint folder through a registered backend) says what answers.
    """
    started = time.perf_counter()
    arm = arm or ProbeArm(model=label)
    options = SessionOptions.model_validate(dict(  # the fields are SessionFields': validated, not an __init__
        kind="eval", backend=backend, model=arm.model, adapter=arm.adapter, device=arm.device, dtype=arm.dtype,
        batch_size=arm.batch_size, base_urls=arm.base_urls, api_key_env=arm.api_key_env,
        battery=battery or bundled_probe_battery_path(),
        gate_config=bundled_probe_gate_config_path(), concurrency=concurrency, retries=2, store=store_dir,
        quiet=True, model_in_memory=model_in_memory))
    scored = (await run_session_async(options)).scored
    return summarise(scored, target, label=label, elapsed_s=time.perf_counter() - started)


def summarise(scored: ScoredRun, target: ProbeTarget, *, label: str, elapsed_s: float) -> ProbeRecord:
    """The counts training watches, from a scored probe run."""
    result = eval_result(scored)
    walls = {item.item_id for item in scored.battery.items if item.is_wall}
    answered = [item for item in result.items if item.error is None and item.response is not None]
    correct = sum(item.passed for item in answered)
    loops = sum(any(mode in LOOP_MODES for mode in item.failure_modes) for item in answered)
    stop_failures = sum(FailureMode.STOP_FAILURE in item.failure_modes for item in answered)
    wall_breaks = sum(item.id in walls and not item.passed for item in answered)
    controls = [reason for reason in result.reasons if is_control_rule(reason.rule)]
    mode_counts = Counter(mode for item in answered for mode in set(item.failure_modes))
    return ProbeRecord(
        kind="probe", schema_version=SCHEMA_VERSION, forgegate_version=__version__,
        created=datetime.now(UTC).isoformat(timespec="seconds"), source=target.source,
        step=target.step, epoch=target.epoch, checkpoint=target.checkpoint, model=label,
        run_id=str(result.run_id), store=result.store, eval_loss=target.eval_loss, items=len(result.items),
        answered=len(answered), correct=correct,
        accuracy=correct / len(result.items) if answered else None, loops=loops, stop_failures=stop_failures,
        walls=len(walls), wall_breaks=wall_breaks, failure_modes=sorted(result.failure_modes),
        mode_counts=dict(sorted(mode_counts.items())),
        controls_passed=bool(controls) and all(reason.outcome is not Gate.INVALID for reason in controls),
        gate=result.gate, elapsed_s=round(elapsed_s, 3))


def probe_line(record: ProbeRecord) -> str:
    """One line a person reads while training runs (the same counts the record keeps)."""
    where = record.checkpoint or f"step {record.step}"
    accuracy = f"{record.correct}/{record.items}"
    modes = ", ".join(record.failure_modes) or "none"
    controls = "controls ok" if record.controls_passed else "CONTROLS FAILED (probe INVALID)"
    versus = versus_words(record)
    versus = f"; against before training ({TEST_WORDS}): {versus}" if versus else ""
    return (f"forgegate probe {where} (step {record.step}): loops {record.loops}/{record.answered}, "
            f"stop failures {record.stop_failures}, walls broken {record.wall_breaks}/{record.walls}, "
            f"correct {accuracy}, modes: {modes}{versus}; {controls}; {record.elapsed_s:.1f} s")


def versus_words(record: ProbeRecord) -> str:
    """The record's tests against the baseline: ``RUNAWAY_LOOP 17/33 vs 16/33 p=0.5, ...`` (empty: none)."""
    return ", ".join(f"{t.mode} {t.count}/{t.answered} vs {t.baseline_count}/{t.baseline_answered} "
                     f"p={t.p_value:.2g}" for t in record.versus_baseline)


def probe_metrics(record: ProbeRecord) -> dict[str, float]:
    """The probe's numbers as the trainer logs them (TensorBoard, W&B, ...): all under ``forgegate/``."""
    metrics = {"forgegate/loops": float(record.loops), "forgegate/stop_failures": float(record.stop_failures),
               "forgegate/wall_breaks": float(record.wall_breaks), "forgegate/answered": float(record.answered),
               "forgegate/controls_passed": float(record.controls_passed)}
    if record.accuracy is not None:
        metrics["forgegate/accuracy"] = record.accuracy
    return metrics
