"""Where a plan's run lives, and whether it already has generations (which freezes the plan).

A plan's run store is ``<store dir>/plan-<plan name>.sqlite``: named after the plan,
not its hash, so that a plan changed after its first generation finds the old run
and is refused rather than quietly starting a fresh one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from forgegate.plan import LoadedPlan, load_plan
from forgegate.store import RunStore, run_path

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def plan_run_id(plan_name: str) -> str:
    """The run id (and file name) of the plan named ``plan_name``: one id per name.

    A name of file-name-safe characters is its own id (``plan-hemingway-v2``). Any other character is replaced by
    ``_`` for the file system, and the id then ends in 8 hex digits of the name's sha256, so that two plans whose
    names differ only in punctuation (``a b`` and ``a/b``, both ``a_b``) never share a run store (issue 46).
    """
    safe = _UNSAFE.sub("_", plan_name)
    if safe == plan_name:
        return "plan-" + plan_name
    return f"plan-{safe}-{hashlib.sha256(plan_name.encode('utf-8')).hexdigest()[:8]}"


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
