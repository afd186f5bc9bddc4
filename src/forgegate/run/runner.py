"""The one runner: arms x items x seeds -> requests -> the engine -> the run store.

``forgegate eval`` and ``live`` are one-arm plans (arm ``model``, one seed, the battery as fixture);
``forgegate run`` is the same call with the plan's arms and seeds. Both resume: the store
knows which requests already have an answer, and only the missing ones are sent.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from forgegate.activity import note_store
from forgegate.backends import Backend, BackendConfig, make_backend
from forgegate.backends.served_sampling import served_sampling
from forgegate.battery import BatteryItem
from forgegate.console import notice
from forgegate.core.records import GenerationRequest
from forgegate.errors import ForgegateError
from forgegate.run.engine import (
    ExecutionSummary,
    PlannedRequest,
    RetryPolicy,
    StopFor,
    execute,
    record_model_digest,
)
from forgegate.store import GenerationMarker, RunMeta, RunStore, run_lock
from forgegate.store.runstore import discard_unanswered


@dataclass(frozen=True)
class ArmSpec:
    """One arm as the runner sees it: a name, a backend and how to reach the model."""

    name: str
    backend: str
    config: BackendConfig
    prompt_template: str | None = None
    """Optional wrapper around each prompt; '{prompt}' marks where it goes."""

    def render(self, prompt: str) -> str:
        return self.prompt_template.replace("{prompt}", prompt) if self.prompt_template else prompt


@dataclass(frozen=True)
class PromptItem:
    """One fixture item: an id, a prompt, and the item's own cap and chat mode where it has them."""

    id: str
    prompt: str
    max_tokens: int | None = None
    chat: bool | None = None
    token_boundaries: bool = False
    """Its scoring needs where each token ends (a ``within_tokens`` window): see GenerationRequest."""


def battery_prompt(item: BatteryItem) -> PromptItem:
    """A battery item as a fixture item: its cap and chat mode, and token boundaries when a
    ``within_tokens`` window will be scored (the only scoring that needs them)."""
    return PromptItem(item.item_id, item.prompt, item.max_tokens, item.chat,
                      token_boundaries=item.within_tokens is not None)


@dataclass(frozen=True)
class SamplingSpec:
    """Sampling sent with every request. ``max_tokens`` None: each item's own cap decides."""

    temperature: float | None = None
    """None: not sent (as served)."""
    top_p: float | None = None
    """None: not sent (as served)."""
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    chat: bool = True
    system: str | None = None

    def cap(self, item: PromptItem) -> int:
        caps = [c for c in (self.max_tokens, item.max_tokens) if c is not None]
        if not caps:
            raise ValueError(f"item {item.id} has no token cap and the sampling sets none")
        return min(caps)


def plan_requests(arms: Sequence[ArmSpec], items: Sequence[PromptItem], seeds: Sequence[int | None],
                  sampling: SamplingSpec) -> list[PlannedRequest]:
    """arm x item x seed, each seed passed to the backend; the cap is the lower of the item's and the sampling's."""
    return [
        PlannedRequest(arm.name, item.id, seed, GenerationRequest(
            prompt=arm.render(item.prompt), max_tokens=sampling.cap(item), seed=seed,
            temperature=sampling.temperature, top_p=sampling.top_p, stop=sampling.stop,
            chat=sampling.chat if item.chat is None else item.chat, system=sampling.system,
            token_boundaries=item.token_boundaries))
        for arm in arms for item in items for seed in seeds
    ]


@dataclass(frozen=True)
class RunOutcome:
    """What generation left in the store: the summary and each arm's model digest (None: not reported)."""

    store_path: Path
    summary: ExecutionSummary
    model_digests: dict[str, str | None]



def endpoint_notes(backend: Backend) -> list[str]:
    """The lines a server backend kept about its endpoints (``OpenAIBackend.endpoint_notes``, a managed
    server's too); none for a backend that keeps none (the protocol does not require them)."""
    notes = getattr(backend, "endpoint_notes", None)
    return [str(line) for line in notes] if isinstance(notes, list) else []


async def generate(store_path: Path, *, identity: RunMeta, metadata: RunMeta,
                   arms: Sequence[ArmSpec], planned: Sequence[PlannedRequest], concurrency: int, quiet: bool,
                   retry: RetryPolicy | None = None, per_arm_digests: bool = True, wait: bool = True,
                   made: Mapping[str, Backend] | None = None, stop_for: StopFor | None = None) -> RunOutcome:
    """Generate every missing answer of ``planned`` into the store at ``store_path`` (resuming if it exists).

    ``identity`` must match what the store already holds (a different run refuses); ``metadata``
    (paths, labels) is recorded and may change between resumes. One process generates a run at
    a time: another waits for it (saying so on stderr) and then resumes from its answers, or,
    with ``wait=False``, refuses at once. ``made`` holds backends the caller built itself (a model in
    memory, by arm name); every other arm's backend is made from its name and config. The runner
    closes them all. ``stop_for`` gives each request's stop predicate (the pipeline's loop cut-off).
    """
    note_store(store_path, len(planned))  # on Ctrl-C the CLI counts what this store already holds
    async with run_lock(store_path, wait=wait, on_wait=notice):
        return await _generate_locked(store_path, identity=identity, metadata=metadata, arms=arms, planned=planned,
                                      concurrency=concurrency, quiet=quiet, retry=retry,
                                      per_arm_digests=per_arm_digests, made=made or {}, stop_for=stop_for)


async def _generate_locked(store_path: Path, *, identity: RunMeta, metadata: RunMeta,
                           arms: Sequence[ArmSpec], planned: Sequence[PlannedRequest], concurrency: int,
                           quiet: bool, retry: RetryPolicy | None, per_arm_digests: bool,
                           made: Mapping[str, Backend], stop_for: StopFor | None = None) -> RunOutcome:
    fresh = not store_path.exists()
    try:
        return await _generate_into(store_path, identity=identity, metadata=metadata, arms=arms, planned=planned,
                                    concurrency=concurrency, quiet=quiet, retry=retry,
                                    per_arm_digests=per_arm_digests, made=made, stop_for=stop_for)
    except ForgegateError:
        if fresh:  # refused (a model file that is not there, a model the server does not list): no run stays
            discard_unanswered(store_path)
        raise


async def _generate_into(store_path: Path, *, identity: RunMeta, metadata: RunMeta,
                         arms: Sequence[ArmSpec], planned: Sequence[PlannedRequest], concurrency: int,
                         quiet: bool, retry: RetryPolicy | None, per_arm_digests: bool,
                         made: Mapping[str, Backend], stop_for: StopFor | None) -> RunOutcome:
    with RunStore.open(store_path) as store:
        store.init_meta(identity)
        store.update_meta(metadata)
        # what a watcher (forgegate view) needs to show progress: the total, and who is generating since when
        store.update_meta(RunMeta(planned_requests=len(planned), generating=GenerationMarker(
            pid=os.getpid(), host=socket.gethostname(), since=time.time())))
        backends: dict[str, Backend] = {}
        try:
            for arm in arms:
                backends[arm.name] = made.get(arm.name) or make_backend(arm.backend, arm.config)
            for arm in arms:
                if "model_label" not in metadata.model_fields_set and len(arms) == 1:
                    path = getattr(backends[arm.name], "model_path", None)
                    store.update_meta(RunMeta(model_label=arm.config.model or (Path(path).name if path
                                                                                else arm.backend)))
            # before generating: a store of other weights under the same name is refused, never resumed
            digests = {name: await record_model_digest(backend, store, name if per_arm_digests else None)
                       for name, backend in backends.items()}
            try:
                summary = await execute(store, planned, backends, concurrency=concurrency, retry=retry,
                                        quiet=quiet, stop_for=stop_for)
            finally:
                notes = [line for backend in backends.values() for line in endpoint_notes(backend)]
                if notes:
                    store.update_meta(RunMeta(endpoint_notes=notes))
            served = {name: values for name, backend in backends.items()
                      if (values := await served_sampling(backend)) is not None}
            if served:
                store.update_meta(RunMeta(served_sampling=served))
        finally:
            store.update_meta(RunMeta(generating=None))
            for backend in backends.values():
                await backend.aclose()
    return RunOutcome(store_path, summary, digests)
