"""``forgegate watch OUTPUT_DIR``: probe each checkpoint a training run writes, from outside the run.

For training that runs elsewhere or without ``ForgegateCallback``. Every ``--interval`` seconds
(or once, with ``--once``) it lists the ``checkpoint-N/`` folders, and probes, in step order, each
one that is completely written (``training/checkpoint_files.py``) and has no record in the probe
file yet: a PEFT adapter as ``--base`` plus the folder, a full model as the folder alone. Each probe
is the same ``ProbeRecord`` the callback writes (source ``watch``), appended only once the probe is
complete, so a watch stopped at any moment and started again probes each checkpoint once. Against the
baseline probe in the file (step 0, the callback's), each record carries the stop rule's tests
(``training/stopping.py``), the same the callback would have written.

One backend over the base stays open for the whole watch: the transformers backend shares a
loaded base among every backend open over it (``backends/transformers_backend.py``), so each
checkpoint's probe loads only its adapter, not the base again. With ``--backend vllm|openai`` the
checkpoint is probed through a server the team runs instead (``training/watch_serving.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from forgegate.backends import Backend, BackendConfig, make_backend
from forgegate.backends.adapters import adapter_base_problem
from forgegate.console import notice
from forgegate.core.limits import WATCH_INTERVAL_S
from forgegate.errors import UsageError
from forgegate.results import ProbeRecord
from forgegate.training.checkpoint_files import (
    Checkpoint,
    Ready,
    Snapshot,
    Waiting,
    inspect_checkpoint,
    list_checkpoints,
)
from forgegate.training.drop_on import DROP_ON_DEFAULT
from forgegate.training.probe import ProbeArm, ProbeTarget, probe_async
from forgegate.training.records import RUNS_DIR, append_probe, read_probes
from forgegate.training.stopping import blind_modes, usable_baseline, versus_baseline
from forgegate.training.watch_serving import (
    PROBE_BACKEND,
    SERVING_BACKENDS,
    NotServed,
    check_serving,
    release,
    serve,
)

LOCAL_BACKENDS: tuple[str, ...] = ("transformers",)
"""Backends that load each checkpoint folder here, onto a base held open."""
WATCH_BACKENDS: tuple[str, ...] = LOCAL_BACKENDS + SERVING_BACKENDS
"""Backends ``watch`` probes through: loaded here, or served by a running server (``--base-url``)."""
SETTLE_S = 2.0
"""A checkpoint whose files changed since the last look is looked at again after this long."""
WATCH_STORE = "watch"
"""The run stores of watch's probes: ``OUTPUT_DIR/forgegate-runs/watch`` (a probe interrupted by Ctrl-C
resumes there when the watch starts again)."""


@dataclass(frozen=True)
class WatchOptions:
    output_dir: Path
    base: str | None
    """The adapters' base (loaded here; with a server, only checked against each adapter's config)."""
    backend: str = "transformers"
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    interval_s: float = WATCH_INTERVAL_S
    once: bool = False
    battery: Path | None = None
    settle_s: float = SETTLE_S
    base_urls: tuple[str, ...] = ()
    """The running server (``--backend vllm|openai``), ``/v1`` included."""
    model_template: str | None = None
    """The name a server serves a checkpoint under: ``{step}`` and ``{checkpoint}`` filled in."""
    api_key_env: str | None = None


class WatchView(Protocol):
    """Where the probes go as they happen (a live table, or one line each)."""

    def show(self, record: ProbeRecord, *, earlier: bool) -> None:
        """A probe record: probed now, or (``earlier``) found in the probe file."""

    def probing(self, checkpoint: Checkpoint) -> None:
        """A probe of ``checkpoint`` has started."""

    def close(self) -> None:
        """The watch is over."""


@dataclass
class WatchOutcome:
    probed: list[ProbeRecord] = field(default_factory=list)
    """Probed by this watch, in order."""
    refused: dict[str, str] = field(default_factory=dict)
    """Checkpoint name -> why it cannot be probed (nothing recorded for it)."""
    waiting: dict[str, str] = field(default_factory=dict)
    """Checkpoint name -> what it was still waiting for at the last look."""


def check_options(options: WatchOptions) -> None:
    """Usage errors before anything is loaded or waited for."""
    if options.backend not in WATCH_BACKENDS:
        raise UsageError(f"--backend {options.backend}: watch probes through {', '.join(LOCAL_BACKENDS)} (each "
                         f"checkpoint loaded here) or {', '.join(SERVING_BACKENDS)} (a running server, --base-url)")
    serving = options.backend in SERVING_BACKENDS
    if serving:
        check_serving(options.backend, options.base_urls, options.model_template)
    elif options.base_urls or options.model_template:
        raise UsageError(f"--base-url and --model-template are for --backend {' or '.join(SERVING_BACKENDS)}; "
                         f"--backend {options.backend} loads each checkpoint here")
    if not options.interval_s > 0:
        raise UsageError(f"--interval must be a positive number of seconds, not {options.interval_s:g}")
    if options.battery is not None and not options.battery.is_file():
        raise UsageError(f"--battery {options.battery} is not a file")
    if options.once and not options.output_dir.exists():
        raise UsageError(f"{options.output_dir} does not exist: start the training run with this output_dir "
                         "first, or run `forgegate watch` without --once to wait for it")
    if serving:
        return
    if options.base is None:
        raise UsageError(f"--backend {options.backend} needs --base: the model the adapters were trained on")
    from forgegate.backends.transformers_backend import resolve_model

    resolve_model(options.base)  # a --base that is nowhere is a usage error now, not at the first checkpoint


async def watch_async(options: WatchOptions, view: WatchView, *, say: Callable[[str], None] = notice
                      ) -> WatchOutcome:
    """Watch until Ctrl-C (or, with ``once``, probe what is complete now); what was probed and refused."""
    try:
        check_options(options)
        await _wait_for_folder(options, say)
        watcher = Watcher(options, view, say)
        try:
            watcher.show_earlier()
            while True:
                await watcher.poll()
                if options.once:
                    break
                await asyncio.sleep(options.interval_s)
        finally:
            await watcher.aclose()
    finally:
        view.close()  # a live table gives the terminal back whatever ended the watch
    return watcher.outcome


async def _wait_for_folder(options: WatchOptions, say: Callable[[str], None]) -> None:
    output_dir = options.output_dir
    if not output_dir.exists():
        say(f"waiting for {output_dir} to appear (the trainer creates it at its first save); Ctrl-C to stop")
        while not output_dir.exists():
            await asyncio.sleep(options.interval_s)
    if not output_dir.is_dir():
        raise UsageError(f"{output_dir} is not a folder: pass the trainer's output_dir")


class Watcher:
    """One output folder: what it has probed, refused and is waiting for, and the base it keeps open."""

    def __init__(self, options: WatchOptions, view: WatchView, say: Callable[[str], None]) -> None:
        self.options = options
        self.view = view
        self.say = say
        self.outcome = WatchOutcome()
        self._keeper: Backend | None = None
        self._last: dict[str, Snapshot] = {}
        self._said: dict[str, str] = {}
        self._blind_said = False

    def show_earlier(self) -> None:
        """The records already in the probe file (each checkpoint's newest), so the table starts whole."""
        probes = read_probes(self.options.output_dir)
        for problem in probes.problems:
            self.say(f"note: {problem} (skipped)")
        newest = {(r.checkpoint, r.step): r for r in probes.records}
        for record in sorted(newest.values(), key=lambda r: r.step):
            self.view.show(record, earlier=True)

    async def poll(self) -> None:
        """One look at the folder: probe, in step order, every complete checkpoint not yet probed."""
        done = read_probes(self.options.output_dir).probed_checkpoints()  # the callback may write it too
        todo = [c for c in list_checkpoints(self.options.output_dir)
                if c.name not in done and c.name not in self.outcome.refused]
        looks = {c.name: self._look(c) for c in todo}
        moving = [c for c in todo if looks[c.name] is None]
        if moving:  # complete but changed since the last look: look again once it has had time to settle
            await asyncio.sleep(self.options.settle_s)
            looks.update({c.name: self._look(c) for c in moving})
        for checkpoint in todo:
            look = looks[checkpoint.name]
            if not isinstance(look, Ready):
                self._waiting(checkpoint, look.reason if look is not None else
                              f"its files changed in the last {self.options.settle_s:g} s (still being written)")
                continue
            self.outcome.waiting.pop(checkpoint.name, None)
            await self._probe(checkpoint, look)

    def _look(self, checkpoint: Checkpoint) -> Ready | Waiting | None:
        """Complete and unchanged since the last look (Ready), incomplete (Waiting), or complete but moving (None)."""
        look = inspect_checkpoint(checkpoint)
        if isinstance(look, Waiting):
            self._last.pop(checkpoint.name, None)
            return look
        previous = self._last.get(checkpoint.name)
        self._last[checkpoint.name] = look.snapshot
        return look if look.snapshot == previous else None

    def _waiting(self, checkpoint: Checkpoint, reason: str, *, unserved: bool = False) -> None:
        self.outcome.waiting[checkpoint.name] = reason
        if self._said.get(checkpoint.name) == reason:
            return
        self._said[checkpoint.name] = reason
        if self.options.once:
            state = "is not served yet" if unserved else "is not completely written"
            self.say(f"{checkpoint.name} {state} ({reason}): not probed; run again once it is")
        else:
            self.say(f"waiting for {checkpoint.name}: {reason}")

    def _refuse(self, checkpoint: Checkpoint, why: str) -> None:
        self.outcome.refused[checkpoint.name] = why
        self.outcome.waiting.pop(checkpoint.name, None)
        self.say(f"{checkpoint.name}: not probed, nothing recorded: {why}")

    async def _probe(self, checkpoint: Checkpoint, ready: Ready) -> None:
        options = self.options
        if options.backend in SERVING_BACKENDS:
            await self._probe_served(checkpoint, ready)
            return
        assert options.base is not None  # check_options: a local backend has its base
        if ready.kind == "adapter":
            problem = adapter_base_problem(checkpoint.path, options.base)
            if problem is not None:
                self._refuse(checkpoint, problem)
                return
            model, adapter = options.base, str(checkpoint.path)
            label = f"{checkpoint.name} (adapter on {Path(options.base).name}, step {checkpoint.step})"
        else:
            model, adapter = str(checkpoint.path), None
            label = f"{checkpoint.name} (full model, step {checkpoint.step})"
        arm = ProbeArm(model=model, adapter=adapter, device=options.device, dtype=options.dtype,
                       batch_size=options.batch_size)
        target = ProbeTarget(step=checkpoint.step, epoch=ready.epoch, checkpoint=checkpoint.name,
                             eval_loss=ready.eval_loss, source="watch")
        self.view.probing(checkpoint)
        try:
            if adapter is not None:
                self._hold_base()
            record = await probe_async(target, label=label, backend=options.backend, arm=arm,
                                       store_dir=options.output_dir / RUNS_DIR / WATCH_STORE, battery=options.battery)
        except UsageError as exc:
            if not checkpoint.path.exists():
                self.say(f"{checkpoint.name} was deleted while it was probed (a save_total_limit rotates old "
                         "checkpoints out): nothing recorded")
                return
            if adapter is None or self._keeper is None:
                raise  # the base or the device itself cannot be used: every checkpoint would fail the same way
            self._refuse(checkpoint, str(exc))
            return
        self._record(checkpoint, record)

    def _record(self, checkpoint: Checkpoint, record: ProbeRecord) -> None:
        if not checkpoint.path.exists() and record.answered < record.items:
            self.say(f"{checkpoint.name} was deleted while it was probed (a save_total_limit rotates old "
                     f"checkpoints out): {record.answered} of {record.items} items answered, nothing recorded")
            return
        record = record.model_copy(update={"versus_baseline": versus_baseline(record, self._baseline())})
        append_probe(self.options.output_dir, record)
        self.outcome.probed.append(record)
        self.view.show(record, earlier=False)

    async def _probe_served(self, checkpoint: Checkpoint, ready: Ready) -> None:
        """The probe through a running server: the checkpoint served by name first (vLLM: loaded)."""
        options = self.options
        served = await serve(options.backend, options.base_urls, options.model_template, options.api_key_env,
                             options.base, checkpoint, ready)
        if isinstance(served, NotServed):
            if served.refuse:
                self._refuse(checkpoint, served.reason)
            else:
                self._waiting(checkpoint, served.reason, unserved=True)
            return
        target = ProbeTarget(step=checkpoint.step, epoch=ready.epoch, checkpoint=checkpoint.name,
                             eval_loss=ready.eval_loss, source="watch")
        self.view.probing(checkpoint)
        try:
            arm = ProbeArm(model=served.name, base_urls=served.config.base_urls, api_key_env=served.config.api_key_env)
            record = await probe_async(target, label=served.label, backend=PROBE_BACKEND, arm=arm,
                                       store_dir=options.output_dir / RUNS_DIR / WATCH_STORE, battery=options.battery)
        finally:
            await release(options.backend, options.base_urls, options.api_key_env, served)
        self._record(checkpoint, record)

    def _baseline(self) -> ProbeRecord | None:
        """The run's baseline probe (step 0, written by the callback), by the stop rule's choice; what it cannot
        see is said once."""
        probes = read_probes(self.options.output_dir)
        baseline, _note = usable_baseline(probes.latest_by_step().get(0), probes.path)
        if baseline is not None and not self._blind_said:
            self._blind_said = True
            for blind in blind_modes(baseline, DROP_ON_DEFAULT):
                self.say(f"note: {blind}")
        return baseline

    def _hold_base(self) -> None:
        """Open one backend over the base for the whole watch (its loaded weights then serve every adapter)."""
        if self._keeper is None:
            options = self.options
            assert options.base is not None  # only a local backend holds a base
            self._keeper = make_backend(options.backend, BackendConfig(
                model=options.base, device=options.device, dtype=options.dtype, batch_size=options.batch_size))

    async def aclose(self) -> None:
        if self._keeper is not None:
            keeper, self._keeper = self._keeper, None
            await keeper.aclose()


__all__ = ["WATCH_BACKENDS", "WatchOptions", "WatchOutcome", "WatchView",
           "check_options", "watch_async"]
