"""Where a plan's run lives, and whether it already has generations (which freezes the plan).

A plan's run store is ``<store dir>/plan-<plan name>.sqlite``: named after the plan,
not its hash, so that a plan changed after its first generation finds the old run
and is refused rather than quietly starting a fresh one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from forgegate.plan import LoadedPlan, load_plan
from forgegate.store import RunStore, run_path


def plan_run_id(plan_name: str) -> str:
    return "plan-" + re.sub(r"[^A-Za-z0-9_.\-]+", "_", plan_name)


@dataclass(frozen=True)
class PlanRunState:
    """The run store of a plan and what it already holds."""

    store_path: Path
    generations: int
    stored_plan_hash: str | None

    @property
    def has_generations(self) -> bool:
        return self.generations > 0


def plan_run_state(plan: LoadedPlan | Path | str, store_dir: Path | None = None) -> PlanRunState:
    """Read-only look at the plan's run store (a missing store has no generations)."""
    loaded = plan if isinstance(plan, LoadedPlan) else load_plan(plan)
    path = run_path(plan_run_id(loaded.plan.name), store_dir)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):  # 0 bytes: killed while creating
        return PlanRunState(path, 0, None)
    with RunStore.open(path, readonly=True) as store:
        return PlanRunState(path, store.row_count(), store.meta().plan_hash)
