"""Which checkpoints of a finished training run become candidate arms: the loss curve's ties, less those
whose training probes showed a failure mode.

The ties are ``forgegate checkpoints``' rule (``metrics/checkpoints.py``): every eval point within one
median neighbour jitter of the minimum. A tie is dropped when its probe shows a watched mode beyond
chance against the baseline probe: the stop rule the callback stops on (``training/stopping.py``'s
``shown``, Fisher's exact test at ``FALSE_STOP_RATE`` shared among the ``--drop-on`` modes; the untrained
model at step 0 may loop already, and that is not the checkpoint's doing). A probe whose loop-detector
controls failed can neither drop nor clear a checkpoint: the checkpoint is kept, as if it had not been probed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgegate.backends.adapters import adapter_base_problem
from forgegate.core.modes import FailureMode
from forgegate.errors import InputError
from forgegate.metrics.checkpoints import CheckpointTies, Ranked, checkpoint_ties, read_trainer_state
from forgegate.results import ProbeRecord
from forgegate.results.record_file import LineProblem
from forgegate.training.checkpoint_files import (
    ADAPTER_CONFIG,
    CHECKPOINT_PREFIX,
    MODEL_CONFIG,
    TRAINER_STATE,
    list_checkpoints,
)
from forgegate.training.drop_on import DROP_ON_DEFAULT
from forgegate.training.records import PROBES_FILE, read_probes
from forgegate.training.stopping import (
    FALSE_STOP_RATE,
    TEST_WORDS,
    blind_modes,
    describe_test,
    mode_test,
    per_mode_rate,
    rate_words,
    shown,
    usable_baseline,
)


def checkpoint_folders(output_dir: Path) -> dict[int, Path]:
    """``{step: folder}`` of every ``checkpoint-N/`` in the output folder, in step order."""
    return {checkpoint.step: checkpoint.path for checkpoint in list_checkpoints(output_dir)}


def find_trainer_state(output_dir: Path) -> tuple[Path, str | None]:
    """The run's ``trainer_state.json`` and, when it is not the top-level one, which one was read instead."""
    if not output_dir.exists():
        raise InputError(output_dir, "no such folder", hint="pass the Trainer's output_dir (the folder that "
                         "holds checkpoint-N/ and trainer_state.json)")
    if not output_dir.is_dir():
        raise InputError(output_dir, "not a folder", hint="pass the Trainer's output_dir, not a file in it")
    top = output_dir / TRAINER_STATE
    if top.is_file():
        return top, None
    saved = [folder for folder in checkpoint_folders(output_dir).values() if (folder / TRAINER_STATE).is_file()]
    if not saved:
        raise InputError(output_dir, f"no {TRAINER_STATE}, neither at the top nor in any {CHECKPOINT_PREFIX}-N/",
                         hint="the Trainer writes one into every checkpoint it saves (and at the top with "
                              "trainer.save_state()): pass its output_dir once it has saved a checkpoint")
    newest = saved[-1] / TRAINER_STATE
    return newest, (f"no {TRAINER_STATE} at the top of {output_dir}: read the newest checkpoint's, "
                    f"{saved[-1].name}/{TRAINER_STATE}")


@dataclass(frozen=True)
class TiedCheckpoint:
    """One checkpoint the curve cannot separate from its minimum, and what its training probe says."""

    tie: Ranked
    folder: Path
    kind: Literal["adapter", "model"]
    """``adapter``: a PEFT folder (adapter_config.json) over the base; ``model``: a full fine-tune."""
    probe: ProbeRecord | None
    shown: tuple[str, ...]
    """Watched modes the probe shows beyond the baseline (empty when not probed or not trusted)."""
    probe_note: str
    """What the probe says about this checkpoint, in a sentence (plan comment and printed line)."""

    @property
    def step(self) -> int:
        return self.tie.point.step

    @property
    def dropped(self) -> bool:
        return bool(self.shown)


@dataclass(frozen=True)
class TrainingSelection:
    """The run's curve, its ties and what was decided for each."""

    output_dir: Path
    state_path: Path
    state_note: str | None
    ties: CheckpointTies
    kept: tuple[TiedCheckpoint, ...]
    dropped: tuple[TiedCheckpoint, ...]
    drop_on: tuple[FailureMode, ...]
    probes_path: Path
    baseline_note: str
    probe_problems: tuple[LineProblem, ...]


def select_checkpoints(output_dir: Path, base: str, drop_on: tuple[FailureMode, ...] = DROP_ON_DEFAULT
                       ) -> TrainingSelection:
    """Read the curve and the probe file of ``output_dir``; decide each tied checkpoint.

    Every refusal is an InputError naming the file and what to do: no curve, too short a curve, a tie
    with no checkpoint on disk, a checkpoint that is neither an adapter nor a model, an adapter over
    another base, every tie dropped.
    """
    state_path, state_note = find_trainer_state(output_dir)
    ties = checkpoint_ties(read_trainer_state(state_path))
    folders = checkpoint_folders(output_dir)
    missing = [r.point.step for r in ties.ties if r.point.step not in folders]
    if missing:
        names = ", ".join(f"{CHECKPOINT_PREFIX}-{step}/" for step in missing)
        raise InputError(output_dir, f"the loss curve ({state_path.name}) ties step(s) "
                         f"{', '.join(map(str, missing))} with its minimum, but no {names} was saved: a plan "
                         "cannot name a checkpoint that is not on disk",
                         hint="save a checkpoint at every eval point (save_steps a multiple of eval_steps, "
                              "e.g. both 50), or the folder was rotated away by save_total_limit (raise it, or "
                              "keep the best with load_best_model_at_end), and re-run")
    probes = read_probes(output_dir)
    by_step = probes.latest_by_step()
    baseline, baseline_note = usable_baseline(by_step.get(0), probes.path)
    if baseline is not None:
        watched = [m.value for m in drop_on]
        baseline_note = "; ".join([f"{baseline_note} ({TEST_WORDS}, {rate_words(FALSE_STOP_RATE, watched)})",
                                   *blind_modes(baseline, drop_on)])
    decided = [_decide(r, folders[r.point.step], by_step.get(r.point.step), baseline, drop_on, probes.path,
                       bool(probes.records)) for r in ties.ties]
    kept = tuple(t for t in decided if not t.dropped)
    dropped = tuple(t for t in decided if t.dropped)
    if not kept:
        why = "; ".join(f"step {t.step}: {t.probe_note}" for t in dropped)
        raise InputError(probes.path, f"every checkpoint tied with the loss minimum showed a failure mode in its "
                         f"training probe ({why}): no plan written",
                         hint="none of these checkpoints is worth gating: look at their probe runs "
                              "(forgegate report on the run store each record names) and retrain; pass "
                              "--drop-on to watch other modes only if these are expected of this model")
    for t in kept:
        if t.kind == "adapter" and (problem := adapter_base_problem(t.folder, base)) is not None:
            raise InputError(t.folder / "adapter_config.json", problem, hint="pass the base it was trained on "
                             "as --base")
    return TrainingSelection(output_dir, state_path, state_note, ties, kept, dropped, drop_on, probes.path,
                             baseline_note, probes.problems)


def _decide(tie: Ranked, folder: Path, record: ProbeRecord | None, baseline: ProbeRecord | None,
            drop_on: tuple[FailureMode, ...], probes_path: Path, any_probes: bool) -> TiedCheckpoint:
    kind = _checkpoint_kind(folder)
    step = tie.point.step
    if record is None:
        where = f"no record for step {step} in {probes_path.name}" if any_probes else f"no {PROBES_FILE}"
        return TiedCheckpoint(tie, folder, kind, None, (), f"not probed ({where})")
    if not record.controls_passed:
        return TiedCheckpoint(tie, folder, kind, record, (), (
            "probe INVALID: the loop detector's controls failed, so it cannot clear this checkpoint "
            "(kept as not probed)"))
    found = shown(record, drop_on, baseline, FALSE_STOP_RATE)
    if found:
        return TiedCheckpoint(tie, folder, kind, record, tuple(s.mode for s in found),
                              "; ".join(s.describe() for s in found))
    threshold = per_mode_rate(FALSE_STOP_RATE, drop_on)
    counts = [describe_test(mode_test(m, record, baseline), threshold) for m in (m.value for m in drop_on)
              if baseline is not None and record.mode_counts.get(m, 0)]
    seen = f"{'; '.join(counts)}: not beyond chance" if counts else (
        f"none of {', '.join(m.value for m in drop_on)}")
    return TiedCheckpoint(tie, folder, kind, record, (), f"probe clean: {seen} (probe gate {record.gate.value})")


def _checkpoint_kind(folder: Path) -> Literal["adapter", "model"]:
    if (folder / ADAPTER_CONFIG).is_file():
        return "adapter"
    if (folder / MODEL_CONFIG).is_file():
        return "model"
    raise InputError(folder, "holds neither adapter_config.json (a PEFT adapter) nor config.json (a full model)",
                     hint="a checkpoint still being written (wait for the save to finish), or not a model "
                          "checkpoint: remove it or finish the save")
