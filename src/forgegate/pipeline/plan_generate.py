"""``forgegate run PLAN``: check the lock and the inputs, then generate arm x item x seed through the one runner.

Scoring is ``forgegate.pipeline.plan_score``; this module only makes sure every planned
generation exists in the plan's run store and hands back the stored rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends.preflight import preflight as probe_endpoint
from forgegate.core.records import StoredResponse
from forgegate.errors import UsageError
from forgegate.metrics.generations import Generation
from forgegate.pipeline.plan_checks import preflight
from forgegate.pipeline.plan_fixture import fixture_battery, fixture_items
from forgegate.pipeline.plan_store import plan_run_id, plan_run_state
from forgegate.plan import (
    RULE_DOES_NOT_MOVE,
    LockedPlan,
    LockRefusedError,
    check_adapters,
    check_lock,
    load_plan,
)
from forgegate.run import ArmSpec, ExecutionSummary, SamplingSpec, generate, plan_requests
from forgegate.store import RunMeta, RunStore, writable_store_dir


@dataclass(frozen=True)
class PlanGenerations:
    """What the run store holds for a locked plan after generation."""

    locked: LockedPlan
    store_path: Path
    summary: ExecutionSummary
    generations: tuple[Generation, ...]
    errors: tuple[StoredResponse, ...]
    missing: tuple[str, ...]
    model_digests: dict[str, str | None]


def plan_arms(locked: LockedPlan) -> list[ArmSpec]:
    """The plan's arms as the runner takes them (adapter paths resolved against the plan's folder).

    Each arm also learns every adapter over its base on its backend (arm name, path), so that a
    server forgegate starts (vLLM) loads them all at once and the arms share it.
    """
    loaded = locked.loaded
    plan = loaded.plan
    adapters: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for arm in plan.arms:
        if arm.adapter is not None:
            adapters.setdefault((arm.backend, arm.model), []).append((arm.name, str(loaded.resolve(arm.adapter))))
    seed = plan.seed_list()[0]
    return [ArmSpec(arm.name, arm.backend,
                    arm.backend_config(loaded.resolve, tuple(adapters.get((arm.backend, arm.model), ())), seed),
                    arm.prompt_template)
            for arm in plan.arms]


def plan_sampling(locked: LockedPlan) -> SamplingSpec:
    s = locked.loaded.plan.sampling
    return SamplingSpec(temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens, stop=s.stop,
                        chat=s.chat, system=s.system)


def _generation(row: StoredResponse) -> Generation:
    return Generation(arm=row.arm, seed=row.seed if row.seed is not None else 0, text=row.response or "",
                      item=row.item_id, finish=row.finish, tokens=row.tokens,  # type: ignore[arg-type]
                      max_tokens=row.request.max_tokens)


async def generate_plan_async(plan_path: Path | str, *, store_dir: Path | None = None, concurrency: int = 1,
                              quiet: bool = True, wait: bool = True) -> PlanGenerations:
    """Lock check, then every missing generation of the plan (a resumed run repeats nothing finished).

    One process generates a plan's run at a time: another waits for it, or with ``wait=False`` refuses.
    """
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    state = plan_run_state(load_plan(plan_path), store_dir)
    locked = check_lock(plan_path, run_has_generations=state.has_generations)
    if state.stored_plan_hash is not None and state.stored_plan_hash != locked.plan_hash and state.has_generations:
        raise LockRefusedError(f"run store {state.store_path} was generated under plan hash "
                               f"{state.stored_plan_hash[:12]}, the lock now says {locked.plan_hash[:12]}: "
                               f"{RULE_DOES_NOT_MOVE}")
    items = fixture_items(locked)
    preflight(locked.loaded, [item.id for item in items], locked.contents)  # nothing generates on bad inputs
    check_adapters(locked.loaded)  # nor on an adapter folder that is not there
    arms = plan_arms(locked)
    planned = plan_requests(arms, items, locked.loaded.plan.seed_list(), plan_sampling(locked))
    finished: set[str] = set()
    if state.has_generations:
        with RunStore.open(state.store_path, create=False, readonly=True) as stored:
            finished = stored.finished_keys()
    to_generate = {request.arm for request in planned if request.key not in finished}
    for arm in arms:  # a dead server, a wrong path or an unserved model: exit 2, before the store is touched
        if arm.name in to_generate:  # an arm whose answers are all stored asks its server nothing
            await probe_endpoint(arm.backend, arm.config)
    battery = fixture_battery(locked)
    metadata = RunMeta(plan_hash=locked.plan_hash, plan_file=str(locked.loaded.path))
    if battery is not None:
        metadata = metadata.model_copy(update={"battery_sha256": battery.sha256})
    identity = RunMeta(kind="plan", run_id=plan_run_id(locked.loaded.plan.name), plan_name=locked.loaded.plan.name)
    writable_store_dir(store_dir)
    outcome = await generate(state.store_path, identity=identity,
                             metadata=metadata, arms=arms, planned=planned, concurrency=concurrency, quiet=quiet,
                             wait=wait)
    summary, digests = outcome.summary, outcome.model_digests
    with RunStore.open(state.store_path, create=False) as store:
        latest = {row.request_key: row for row in store.latest()}
    wanted = [p.key for p in planned]
    rows = [latest[key] for key in wanted if key in latest]
    return PlanGenerations(
        locked=locked, store_path=state.store_path, summary=summary,
        generations=tuple(_generation(r) for r in rows if r.ok),
        errors=tuple(r for r in rows if not r.ok),
        missing=tuple(key for key in wanted if key not in latest), model_digests=digests)


def generate_plan(plan_path: Path | str, *, store_dir: Path | None = None, concurrency: int = 1,
                  quiet: bool = True, wait: bool = True) -> PlanGenerations:
    """``generate_plan_async`` from synchronous code (the CLI)."""
    return asyncio.run(generate_plan_async(plan_path, store_dir=store_dir, concurrency=concurrency, quiet=quiet,
                                           wait=wait))
