"""``forgegate run PLAN``: check the lock, expand arm x item x seed, generate (resumable) into the store.

Scoring is ``forgegate.run.plan_score``; this module only makes sure every planned
generation exists in the plan's run store and hands back the stored rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends import Backend, GenerationRequest, make_backend
from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.errors import UsageError
from forgegate.fixture.builder import load_fixture
from forgegate.metrics.generations import Generation
from forgegate.plan import (
    RULE_DOES_NOT_MOVE,
    LockedPlan,
    LockRefusedError,
    check_adapters,
    check_lock,
    is_bundled,
    load_plan,
)
from forgegate.run.engine import ExecutionSummary, PlannedRequest, execute, record_model_digest
from forgegate.run.plan_checks import preflight
from forgegate.run.plan_store import plan_run_id, plan_run_state
from forgegate.store import RunStore, StoredResponse


@dataclass(frozen=True)
class PromptItem:
    id: str
    prompt: str
    max_tokens: int | None = None
    chat: bool | None = None


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


def fixture_battery(locked: LockedPlan) -> Battery | None:
    """The battery the fixture names (bundled or a path), or None for a fixture JSONL."""
    loaded = locked.loaded
    name = loaded.plan.fixture.battery
    if name is None:
        return None
    path = Path(bundled_battery_path()) if is_bundled(name) else loaded.resolve(name)
    return load_battery(path)


def fixture_items(locked: LockedPlan) -> list[PromptItem]:
    """The fixture's prompts: a built fixture JSONL, or a battery's items (with their own caps)."""
    loaded = locked.loaded
    fixture = loaded.plan.fixture
    if fixture.path is not None:
        return [PromptItem(i.id, i.prompt) for i in load_fixture(loaded.resolve(fixture.path))]
    battery = fixture_battery(locked)
    assert battery is not None
    return [PromptItem(item.item_id, item.prompt, item.max_tokens, item.chat) for item in battery.items]


def plan_requests(locked: LockedPlan, items: list[PromptItem]) -> list[PlannedRequest]:
    """arm x fixture item x seed, each seed passed to the backend; sampling exactly as the plan says."""
    plan = locked.loaded.plan
    s = plan.sampling
    planned: list[PlannedRequest] = []
    for arm in plan.arms:
        for item in items:
            for seed in plan.seed_list():
                cap = min(s.max_tokens, item.max_tokens) if item.max_tokens else s.max_tokens
                request = GenerationRequest(prompt=arm.render(item.prompt), max_tokens=cap, seed=seed,
                                            temperature=s.temperature, top_p=s.top_p, stop=s.stop,
                                            chat=s.chat if item.chat is None else item.chat, system=s.system)
                planned.append(PlannedRequest(arm.name, item.id, seed, request))
    return planned


def _generation(row: StoredResponse) -> Generation:
    return Generation(arm=row.arm, seed=row.seed if row.seed is not None else 0, text=row.response or "",
                      item=row.item_id, finish=row.finish, tokens=row.tokens,  # type: ignore[arg-type]
                      max_tokens=row.request.max_tokens)


async def _generate(locked: LockedPlan, store: RunStore, planned: list[PlannedRequest], concurrency: int,
                    quiet: bool) -> tuple[ExecutionSummary, dict[str, str | None]]:
    plan = locked.loaded.plan
    backends: dict[str, Backend] = {}
    try:
        for arm in plan.arms:
            backends[arm.name] = make_backend(arm.backend, arm.backend_config(locked.loaded.resolve))
        summary = await execute(store, planned, backends, concurrency=concurrency, quiet=quiet)
        digests = {name: await record_model_digest(backend, store, f"model_digest:{name}")
                   for name, backend in backends.items()}
    finally:
        for backend in backends.values():
            await backend.aclose()
    return summary, digests


def generate_plan(plan_path: Path | str, *, store_dir: Path | None = None, concurrency: int = 1,
                  quiet: bool = True) -> PlanGenerations:
    """Lock check, then every missing generation of the plan (a resumed run repeats nothing finished)."""
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    state = plan_run_state(load_plan(plan_path), store_dir)
    locked = check_lock(plan_path, run_has_generations=state.has_generations)
    if state.stored_plan_hash is not None and state.stored_plan_hash != locked.plan_hash and state.has_generations:
        raise LockRefusedError(f"run store {state.store_path} was generated under plan hash "
                               f"{state.stored_plan_hash[:12]}, the lock now says {locked.plan_hash[:12]}: "
                               f"{RULE_DOES_NOT_MOVE}")
    items = fixture_items(locked)
    preflight(locked.loaded, [item.id for item in items])  # nothing generates on bad instrument inputs
    check_adapters(locked.loaded)  # nor on an adapter folder that is not there
    planned = plan_requests(locked, items)
    battery = fixture_battery(locked)
    with RunStore.open(state.store_path) as store:
        store.init_meta({"kind": "plan", "run_id": plan_run_id(locked.loaded.plan.name),
                         "plan_name": locked.loaded.plan.name})
        store.set_meta("plan_hash", locked.plan_hash)
        store.set_meta("plan_file", str(locked.loaded.path))
        if battery is not None:
            store.set_meta("battery_sha256", battery.sha256)
        summary, digests = asyncio.run(_generate(locked, store, planned, concurrency, quiet))
        latest = {row.request_key: row for row in store.latest()}
    wanted = [p.key for p in planned]
    rows = [latest[key] for key in wanted if key in latest]
    return PlanGenerations(
        locked=locked, store_path=state.store_path, summary=summary,
        generations=tuple(_generation(r) for r in rows if r.ok),
        errors=tuple(r for r in rows if not r.ok),
        missing=tuple(key for key in wanted if key not in latest), model_digests=digests)
