"""``forgegate semantic quality-sheet``: a plan's blinded human-review sheets from its run store's answers."""

from __future__ import annotations

from pathlib import Path

from forgegate.errors import UsageError
from forgegate.fixture.builder import load_fixture
from forgegate.metrics.generations import Generation
from forgegate.pipeline.plan.quality_scoring import write_review_sheets
from forgegate.pipeline.plan.semantic import semantic_out_dir
from forgegate.pipeline.plan.store import plan_run_state
from forgegate.plan import load_plan
from forgegate.store import RunStore


def review_sheets_for_plan(plan_path: Path, store_dir: Path | None) -> list[Path]:
    """``forgegate semantic quality-sheet``: the plan's human-review sheets from its run store's answers (nothing
    is generated; the run must have stored them)."""
    loaded = load_plan(plan_path)
    params = loaded.plan.instruments.semantic
    if params is None or loaded.plan.fixture.path is None:
        raise UsageError(f"{plan_path} declares no semantic instrument over a fixture JSONL: no quality to review")
    state = plan_run_state(loaded, store_dir)
    if not state.has_generations:
        raise UsageError(f"no stored answer in {state.store_path}: run the plan first (forgegate run {plan_path})")
    prompts = {item.id: item.prompt for item in load_fixture(loaded.resolve(loaded.plan.fixture.path))}
    with RunStore.open(state.store_path, readonly=True) as store:
        rows = [r for r in store.latest() if r.ok and r.item_id in prompts]
    generations = [Generation(arm=r.arm, seed=r.seed if r.seed is not None else 0, text=r.response or "",
                              item=r.item_id) for r in rows]
    return write_review_sheets(loaded, generations, prompts, semantic_out_dir(state.store_path),
                               params.bootstrap_seed)
