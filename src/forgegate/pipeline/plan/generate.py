"""``forgegate run PLAN``: check the lock and the inputs, then generate arm x item x seed through the one runner.

Scoring is ``forgegate.pipeline.plan.score``; this module only makes sure every planned
generation exists in the plan's run store and hands back the stored rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, fields
from pathlib import Path

from forgegate.pipeline.generation import RunRequests, StoredGenerations, check_concurrency, generate_run
from forgegate.pipeline.plan.checks import preflight
from forgegate.pipeline.plan.fixture import fixture_battery, fixture_items
from forgegate.pipeline.plan.store import plan_run_id, plan_run_state
from forgegate.plan import (
    RULE_DOES_NOT_MOVE,
    LockedPlan,
    LockRefusedError,
    check_adapters,
    check_lock,
    load_plan,
)
from forgegate.run import ArmSpec, SamplingSpec
from forgegate.store import RunMeta


@dataclass(frozen=True)
class PlanGenerations(StoredGenerations):
    """What the run store holds for a locked plan after generation, and the plan it was locked under."""

    locked: LockedPlan


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
    return SamplingSpec(temperature=s.temperature, top_p=s.sent_top_p, max_tokens=s.max_tokens, stop=s.stop,
                        chat=s.chat, system=s.system)


async def generate_plan_async(plan_path: Path | str, *, store_dir: Path | None = None, concurrency: int = 1,
                              quiet: bool = True, wait: bool = True) -> PlanGenerations:
    """Lock check, then every missing generation of the plan (a resumed run repeats nothing finished).

    One process generates a plan's run at a time: another waits for it, or with ``wait=False`` refuses.
    """
    check_concurrency(concurrency)
    state = plan_run_state(load_plan(plan_path), store_dir)
    locked = check_lock(plan_path, run_has_generations=state.has_generations)
    if state.stored_plan_hash is not None and state.stored_plan_hash != locked.plan_hash and state.has_generations:
        raise LockRefusedError(f"run store {state.store_path} was generated under plan hash "
                               f"{state.stored_plan_hash[:12]}, the lock now says {locked.plan_hash[:12]}: "
                               f"{RULE_DOES_NOT_MOVE}")
    items = fixture_items(locked)
    preflight(locked.loaded, [item.id for item in items], locked.contents)  # nothing generates on bad inputs
    check_adapters(locked.loaded)  # nor on an adapter folder that is not there
    battery = fixture_battery(locked)
    metadata = RunMeta(plan_hash=locked.plan_hash, plan_file=str(locked.loaded.path))
    if battery is not None:
        metadata = metadata.model_copy(update={"battery_sha256": battery.sha256})
    name = locked.loaded.plan.name
    requests = RunRequests.of(plan_run_id(name), store_dir,
                              identity=RunMeta(kind="plan", run_id=plan_run_id(name), plan_name=name),
                              metadata=metadata, arms=plan_arms(locked), items=items,
                              seeds=locked.loaded.plan.request_seeds(), sampling=plan_sampling(locked))
    stored = await generate_run(requests, concurrency=concurrency, quiet=quiet, wait=wait)
    return PlanGenerations(**{f.name: getattr(stored, f.name) for f in fields(stored)}, locked=locked)


def generate_plan(plan_path: Path | str, *, store_dir: Path | None = None, concurrency: int = 1,
                  quiet: bool = True, wait: bool = True) -> PlanGenerations:
    """``generate_plan_async`` from synchronous code (the CLI)."""
    return asyncio.run(generate_plan_async(plan_path, store_dir=store_dir, concurrency=concurrency, quiet=quiet,
                                           wait=wait))
