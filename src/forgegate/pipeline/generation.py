"""The one generate step of the one road: arm x item x seed into a run store, for a locked plan and an eval alike.

``forgegate run PLAN`` builds its :class:`RunRequests` from a locked TOML plan (``plan_generate``), ``forgegate
eval`` / ``live`` from the session's options as a one-arm plan (arm ``model``, one seed, the battery as fixture:
``eval_session``); both then call :func:`generate_run`, which probes the servers, generates what the store lacks
and reads back what the store holds. What differs between them is what they ask for, never how it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from forgegate.backends import Backend
from forgegate.backends.preflight import preflight as probe_endpoint
from forgegate.core.records import StoredResponse
from forgegate.errors import UsageError
from forgegate.metrics.generations import Generation
from forgegate.run import (
    ArmSpec,
    ExecutionSummary,
    PlannedRequest,
    PromptItem,
    RetryPolicy,
    SamplingSpec,
    StopFor,
    generate,
    plan_requests,
)
from forgegate.store import RunMeta, RunStore, run_path, writable_store_dir


@dataclass(frozen=True)
class RunRequests:
    """Everything one run generates, and how its store is labelled: the one shape both entries build.

    ``identity`` must match what an existing store holds (another run is refused); ``metadata`` is recorded
    and may change between resumes. ``per_arm_digests`` keeps each arm's model digest under its own key (a
    plan); an eval's one arm keeps the run's one ``model_digest``.
    """

    run_id: str
    store_dir: Path | None
    identity: RunMeta
    metadata: RunMeta
    arms: tuple[ArmSpec, ...]
    planned: tuple[PlannedRequest, ...]
    per_arm_digests: bool = True
    probe_every_arm: bool = False
    """Probe every arm's server before generating, even an arm whose answers are all stored (an eval, whose
    record names the model the server says it serves each time); otherwise an arm with nothing left to generate
    asks its server nothing (a plan)."""
    run_id_for: Callable[[str], str] | None = None
    """A one-arm run's id once its server's probe reports the model's digest (an eval's): the digest is part of
    the run's identity, so new weights under the same name are a new run, never a resume (issue 46)."""

    @classmethod
    def of(cls, run_id: str, store_dir: Path | None, *, identity: RunMeta, metadata: RunMeta,
           arms: Sequence[ArmSpec], items: Sequence[PromptItem], seeds: Sequence[int | None],
           sampling: SamplingSpec, per_arm_digests: bool = True, probe_every_arm: bool = False,
           run_id_for: Callable[[str], str] | None = None) -> RunRequests:
        """arm x item x seed through the runner's one request builder (``run.plan_requests``)."""
        return cls(run_id, store_dir, identity, metadata, tuple(arms),
                   tuple(plan_requests(arms, items, seeds, sampling)), per_arm_digests, probe_every_arm, run_id_for)

    def of_weights(self, digest: str | None) -> RunRequests:
        """This run as the weights with ``digest`` name it (itself when it is not named by a digest)."""
        if digest is None or self.run_id_for is None:
            return self
        run_id = self.run_id_for(digest)
        fields = self.identity.model_dump(include=self.identity.model_fields_set)
        identity = RunMeta.model_validate({**fields, "run_id": run_id, "model_digest": digest})
        return replace(self, run_id=run_id, identity=identity)

    @property
    def store_path(self) -> Path:
        return run_path(self.run_id, self.store_dir)


@dataclass(frozen=True)
class StoredGenerations:
    """What the run store holds for the planned requests after generation (the latest row of each)."""

    store_path: Path
    summary: ExecutionSummary
    generations: tuple[Generation, ...]
    errors: tuple[StoredResponse, ...]
    missing: tuple[str, ...]
    model_digests: dict[str, str | None]


def _generation(row: StoredResponse) -> Generation:
    return Generation(arm=row.arm, seed=row.seed if row.seed is not None else 0, text=row.response or "",
                      item=row.item_id, finish=row.finish, tokens=row.tokens,  # type: ignore[arg-type]
                      max_tokens=row.request.max_tokens)


def check_concurrency(concurrency: int) -> None:
    """At least one request in flight (checked by an entry before its slower checks, and again here)."""
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")


async def generate_run(requests: RunRequests, *, concurrency: int = 1, quiet: bool = True, wait: bool = True,
                       retry: RetryPolicy | None = None, stop_for: StopFor | None = None,
                       made: Mapping[str, Backend] | None = None) -> StoredGenerations:
    """Every missing answer of ``requests`` into its store (a resumed run repeats nothing finished).

    In this order, so that bad input costs nothing: the store folder (named before any network), then each
    arm's server (a dead server, a wrong path or an unserved model is exit 2, before the store is touched),
    then generation. ``made`` holds backends the caller built (a model in memory, by arm name; never probed);
    ``stop_for`` gives each request's stop predicate (the loop cut-off); ``retry`` the engine's retry policy.
    One process generates a run at a time: another waits for it, or with ``wait=False`` refuses.
    """
    check_concurrency(concurrency)
    made = made or {}
    store_dir = writable_store_dir(requests.store_dir)
    store_path = run_path(requests.run_id, store_dir)
    finished: set[str] = set()
    if not requests.probe_every_arm and store_path.exists() and store_path.stat().st_size > 0:
        with RunStore.open(store_path, create=False, readonly=True) as stored:
            finished = stored.finished_keys()
    to_generate = {r.arm for r in requests.planned if r.key not in finished}
    served: list[str | None] = []
    digests: list[str | None] = []
    for arm in requests.arms:
        if arm.name not in made and (requests.probe_every_arm or arm.name in to_generate):
            found = await probe_endpoint(arm.backend, arm.config)
            served.append(found.model_id if found is not None else None)
            digests.append(found.digest if found is not None else None)
    if len(requests.arms) == 1 and digests:
        requests = requests.of_weights(digests[0])
        store_path = run_path(requests.run_id, store_dir)
    metadata = requests.metadata
    if len(requests.arms) == 1 and requests.probe_every_arm:  # the one arm's record names what its server serves
        metadata = metadata.model_copy(update={"served_model": served[0] if served else None})
    outcome = await generate(store_path, identity=requests.identity, metadata=metadata, arms=requests.arms,
                             planned=requests.planned, concurrency=concurrency, quiet=quiet, retry=retry,
                             per_arm_digests=requests.per_arm_digests, wait=wait, made=made, stop_for=stop_for)
    with RunStore.open(store_path, create=False) as store:
        latest = {row.request_key: row for row in store.latest()}
    wanted = [p.key for p in requests.planned]
    rows = [latest[key] for key in wanted if key in latest]
    return StoredGenerations(
        store_path=store_path, summary=outcome.summary,
        generations=tuple(_generation(r) for r in rows if r.ok),
        errors=tuple(r for r in rows if not r.ok),
        missing=tuple(key for key in wanted if key not in latest), model_digests=outcome.model_digests)
