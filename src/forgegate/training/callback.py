"""``ForgegateCallback``: probe the model being trained at each checkpoint save, and stop a run that starts to loop.

Attach it to a ``transformers.Trainer`` (or a trainer built on it, such as TRL's ``SFTTrainer``)::

    trainer = Trainer(..., callbacks=[ForgegateCallback(stop_on=["IDENTITY_LOOP"], patience=2)])

Before the first step it probes the untrained model (the baseline); at every checkpoint save (and,
with ``every_steps=N``, every N steps) it runs the probe battery on the trainer's own model object,
adapter and all, in this process, without copying it. Each probe:

* appends one ``ProbeRecord`` to ``OUTPUT_DIR/forgegate-probes.jsonl`` (its answers stay in a run store
  under ``OUTPUT_DIR/forgegate-runs/``);
* goes out through the trainer's own logging (``trainer.log``), as ``forgegate/loops``,
  ``forgegate/accuracy`` and the rest, so it reaches TensorBoard, W&B or whatever ``report_to`` names;
* prints one line on stderr;
* with ``stop_on``, counts towards stopping: after ``patience`` probes in a row show a watched mode
  beyond chance against the baseline (``training/stopping.py``: Fisher's exact test on the two counts at
  ``false_stop_rate``, 1% per probe by default), training stops and the record says why, with the counts,
  the test and its p-value. A mode the baseline already has in too many items for the probe to see it grow
  is named once, at the baseline, instead of stopping on noise.

Under several processes (``torchrun`` / ``accelerate launch``, DDP), only the main process probes and
writes the probe file; after each probe point every process takes the main one's stop decision
(``torch.distributed.broadcast_object_list``), so all stop at the same step and none waits forever at
the next collective. The probe generates on the main process's full copy of the weights: DDP (each
process holds the whole model), not sharded training (FSDP, DeepSpeed ZeRO-3).

A ``TrainerCallback`` is not handed its trainer, so the callback finds the trainer that calls it
in the call stack at ``on_train_begin`` (or takes ``trainer=`` when given); without one, the numbers
still go to ``state.log_history`` and the probe file.
"""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from forgegate.backends.in_memory import InMemoryBackend
from forgegate.console import notice
from forgegate.core.sync import run_sync
from forgegate.errors import UsageError
from forgegate.results import ProbeRecord
from forgegate.training.checkpoint_files import checkpoint_name, eval_loss_at
from forgegate.training.probe import ProbeTarget, probe_async, probe_line, probe_metrics
from forgegate.training.records import RUNS_DIR, append_probe, probes_path, read_probes
from forgegate.training.stopping import FALSE_STOP_RATE, StopWatch, stop_modes, usable_baseline, versus_baseline


class ForgegateCallback(TrainerCallback):
    """Probe each checkpoint as it is saved; optionally stop training on a failure mode.

    :param stop_on: failure modes (e.g. ``IDENTITY_LOOP``, ``RUNAWAY_LOOP``) that stop training once ``patience``
        probes in a row show one beyond the baseline; empty: probe and record, never stop.
    :param patience: how many probes in a row must show a ``stop_on`` mode before training stops.
    :param every_steps: probe every this many optimizer steps as well as at each save; None: at saves only.
    :param probe_at_start: probe the model before the first step too (the baseline the later probes are read
        against).
    :param battery: the probe battery (JSONL); None: the bundled 33-item GLOSS v2 probe.
    :param tokenizer: the tokenizer the probe encodes prompts with; None: the trainer's ``processing_class``.
    :param trainer: the Trainer whose ``log`` the numbers go through; None: found in the call stack at
        ``on_train_begin``.
    :param batch_size: most probe prompts decoded together on the model in memory; None: the backend's default.
    :param false_stop_rate: the chance, per probe, that a run whose failure modes did not change is stopped
        anyway (Fisher's exact test of each watched mode's count against the baseline probe's, shared among
        the watched modes); default 1%.
    """

    def __init__(self, *, stop_on: list[str] | tuple[str, ...] = (), patience: int = 1,
                 every_steps: int | None = None, probe_at_start: bool = True, battery: str | Path | None = None,
                 tokenizer: Any = None, trainer: Any = None, batch_size: int | None = None,
                 false_stop_rate: float = FALSE_STOP_RATE) -> None:
        if every_steps is not None and (isinstance(every_steps, bool) or every_steps < 1):
            raise UsageError(f"every_steps must be a whole number of steps, at least 1, not {every_steps!r}")
        self.watch = StopWatch(stop_modes(stop_on), patience, false_stop_rate=false_stop_rate)
        self.every_steps = every_steps
        self.probe_at_start = probe_at_start
        self.battery = Path(battery) if battery is not None else None
        if self.battery is not None and not self.battery.is_file():
            raise UsageError(f"probe battery {self.battery} is not a file")
        self.tokenizer = tokenizer
        self.trainer = trainer
        self.batch_size = batch_size
        self.records: list[ProbeRecord] = []
        """Every probe this callback ran, oldest first."""
        self.stop_reason: str | None = None
        self._session = ""
        self._probed_steps: set[int] = set()

    # -- trainer events ---------------------------------------------------------------------------------

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                       **kwargs: Any) -> None:
        self._session = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        if self.trainer is None:
            self.trainer = _calling_trainer()
        if self.tokenizer is None and kwargs.get("processing_class") is None:
            raise UsageError("ForgegateCallback needs the model's tokenizer to probe it: pass it to the Trainer "
                             "(processing_class=tokenizer) or to ForgegateCallback(tokenizer=tokenizer)")
        _output_dir(args)
        if not state.is_world_process_zero:
            return
        earlier = read_probes(_output_dir(args)).latest_by_step()
        first = None
        if state.global_step == 0 and self.probe_at_start:
            first = self._probe(args, state, control, None, kwargs, baseline=True)
        elif 0 in earlier:  # resumed from a checkpoint: the baseline probed when this run first started
            first = earlier[0]
        if first is None:
            return
        self.watch.baseline, note = usable_baseline(first, probes_path(_output_dir(args)))
        if self.watch.baseline is None and self.watch.modes:
            notice(f"forgegate: {note}")
        for blind in self.watch.blind():
            notice(f"forgegate: {blind}")

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                    **kwargs: Any) -> None:
        if self.every_steps and state.global_step % self.every_steps == 0 and not control.should_save:
            if state.is_world_process_zero:
                self._probe(args, state, control, None, kwargs)
            self._agree(control)

    def on_save(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                **kwargs: Any) -> None:
        if state.is_world_process_zero:
            self._probe(args, state, control, checkpoint_name(state.global_step), kwargs)
        self._agree(control)

    def _agree(self, control: TrainerControl) -> None:
        """Every process takes the main process's stop decision (a no-op in a single process).

        Called by every process at the same probe points (the Trainer calls each event on all of
        them), so the broadcast pairs up; a process that stopped alone would leave the others
        waiting at the next gradient all-reduce.
        """
        decided = broadcast_from_main(self.stop_reason)
        if decided is not None:
            self.stop_reason = decided
            control.should_training_stop = True

    # -- one probe ---------------------------------------------------------------------------------------

    def _probe(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, checkpoint: str | None,
               kwargs: dict[str, Any], *, baseline: bool = False) -> ProbeRecord | None:
        if state.global_step in self._probed_steps:
            return None
        self._probed_steps.add(state.global_step)
        model = kwargs.get("model")
        if model is None:
            raise UsageError("ForgegateCallback was given no model: attach it to a transformers Trainer")
        tokenizer = self.tokenizer if self.tokenizer is not None else kwargs.get("processing_class")
        where = "before training" if baseline else (checkpoint or f"step-{state.global_step}")
        label = f"{where} (in memory, step {state.global_step})"
        output_dir = _output_dir(args)
        backend = InMemoryBackend(model, tokenizer, label=label, batch_size=self.batch_size)
        target = ProbeTarget(step=state.global_step, epoch=state.epoch, checkpoint=checkpoint,
                             eval_loss=eval_loss_at(state.log_history, state.global_step), source="callback")
        record = run_sync(probe_async(target, label=label, store_dir=output_dir / RUNS_DIR / self._session,
                                      model_in_memory=backend, battery=self.battery))
        reason = None if baseline else self.watch.observe(record)
        record = record.model_copy(update={"versus_baseline": versus_baseline(record, self.watch.baseline),
                                           "stopped_training": reason})
        append_probe(output_dir, record)
        self.records.append(record)
        notice(probe_line(record))
        self._log(state, record)
        if reason is not None:
            self.stop_reason = reason
            notice(reason)
            control.should_training_stop = True
        return record

    def _log(self, state: TrainerState, record: ProbeRecord) -> None:
        """Through ``trainer.log`` when there is a trainer (every reporting integration hears it)."""
        metrics = probe_metrics(record)
        if self.trainer is not None:
            self.trainer.log(metrics)
        else:
            state.log_history.append({**metrics, "step": state.global_step})


def broadcast_from_main(value: str | None) -> str | None:
    """The main process's ``value`` on every process of a torch.distributed job; ``value`` itself otherwise."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
        return value
    box: list[str | None] = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def _output_dir(args: TrainingArguments) -> Path:
    if not args.output_dir:
        raise UsageError("ForgegateCallback writes its probe file into the trainer's output_dir: set "
                         "TrainingArguments(output_dir=...)")
    return Path(args.output_dir)


def _calling_trainer() -> Any:
    """The ``transformers.Trainer`` whose training loop is calling this callback, found in the call stack."""
    from transformers import Trainer

    frame = inspect.currentframe()
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if isinstance(candidate, Trainer):
            return candidate
        frame = frame.f_back
    return None
