"""E3_TOPOLOGY from a plan: aggregates with their token cost, the matched-budget rule, and the E3 block.

T_GPT v0.8.1: "E3_TOPOLOGY": "AGG_COVERAGE at matched total-token budget"; AGG_COVERAGE is "primary
for aggregation/topology studies", MINORITY_RECALL "secondary" ("adjusted using Holm correction within
each experiment family"); "For aggregators operating on the same frozen branch pools, bootstrap
resamples pools as paired units." The metrics table already computes both metrics per aggregate
with paired pool resampling within a task and a task-level bootstrap across tasks; this module
checks that the two compared aggregates were built on matched token budgets (else refuses, printing
both) and reads the primary difference and the Holm-adjusted secondary out of that table. The budgets
are summed from the run store's token counts of each aggregate's declared cost arms (``stored_totals``);
a file's self-reported ``total_tokens`` (``file_totals``) are accepted only where no store is given, and
the result says which source it used.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from forgegate.core.records import StoredResponse
from forgegate.errors import InputError
from forgegate.jsonio import read_jsonl_models
from forgegate.semantic.bootstrap import holm
from forgegate.semantic.input_rows import AggregateRow, unique_aggregates

Json = dict[str, Any]

MATCHED_BUDGET = 0.05
"""T_GPT's "matched total-token budget", as forgegate reads it: two aggregates' total tokens differ by at most 5% of
the larger. ``semantic metrics --experiment E3_TOPOLOGY`` holds every aggregate pair to it, and a confirmatory plan
may pre-register a tighter ``budget_tolerance``, never a looser one."""


class BudgetedAggregateRow(BaseModel):
    """One aggregate of one branch pool: ``{"task", "pool", "aggregate", "clusters"}``, and, where no run store
    gives the budget, ``"total_tokens"`` (input + output tokens of every call that produced it, branches
    included: self-reported, so only exploratory)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    pool: str = Field(min_length=1)
    aggregate: str = Field(min_length=1)
    clusters: list[str]
    total_tokens: int | None = Field(default=None, ge=0)

    def plain(self) -> AggregateRow:
        return AggregateRow(task=self.task, pool=self.pool, aggregate=self.aggregate, clusters=self.clusters)


PerTask = dict[str, dict[str, int]]
"""task -> aggregate -> total tokens."""

FILE_SOURCE = "the aggregates file's self-reported total_tokens, not taken from a run store"


def read_budgeted(path: Path, raw: bytes | None = None) -> list[tuple[int, BudgetedAggregateRow]]:
    """The rows with their line numbers (from ``raw``, the file's bytes, when the caller read them); a repeated
    (task, pool, aggregate) is an error naming both lines."""
    return unique_aggregates(path, read_jsonl_models(path, BudgetedAggregateRow, raw))


def file_totals(rows: list[tuple[int, BudgetedAggregateRow]], compared: tuple[str, ...], tasks: list[str],
                path: Path | str) -> PerTask:
    """Each compared aggregate's self-reported total tokens per task (every row must state its ``total_tokens``)."""
    per_task: PerTask = defaultdict(lambda: dict.fromkeys(compared, 0))
    present: dict[str, set[str]] = defaultdict(set)
    for line, row in rows:
        if row.aggregate in compared:
            if row.total_tokens is None:
                raise InputError(path, f"aggregate {row.aggregate!r} of pool {row.pool!r} states no total_tokens",
                                 line=line, field="total_tokens",
                                 hint="E3 is AGG_COVERAGE at matched total-token budget: give every row its "
                                      "total_tokens, or score it in a plan that takes them from its run store "
                                      "([instruments.semantic.aggregation] cost_arms)")
            per_task[row.task][row.aggregate] += row.total_tokens
            present[row.aggregate].add(row.task)
    for name in compared:
        lacking = [t for t in tasks if t not in present[name]]
        if lacking:
            raise InputError(path, f"the compared aggregate {name!r} has no row for task(s) {', '.join(lacking[:5])}",
                             field="aggregate", hint="E3 compares the two declared aggregates on every task's pools")
    return dict(per_task)


def refuse_file_tokens(rows: list[tuple[int, BudgetedAggregateRow]], path: Path | str) -> None:
    """Where the budgets come from the run store, a row's own ``total_tokens`` is a second source: refused."""
    for line, row in rows:
        if row.total_tokens is not None:
            raise InputError(path, "total_tokens is taken from the run store here (the plan's cost_arms), not from "
                             "the aggregates file", line=line, field="total_tokens",
                             hint="remove total_tokens from every row")


def stored_totals(stored: Sequence[StoredResponse], cost_arms: Mapping[str, Sequence[str]],
                  tasks: list[str]) -> tuple[PerTask | None, str | None]:
    """Each aggregate's budget per task from the run store: the stored input + output tokens of every request of
    its cost arms on that task. None, with why, when the store cannot give it: a request of those arms that failed
    or is missing for a task, or one whose backend did not report both counts (never a partial sum)."""
    by_arm_task: dict[tuple[str, str], list[StoredResponse]] = defaultdict(list)
    for row in stored:
        by_arm_task[(row.arm, row.item_id)].append(row)
    per_task: PerTask = {task: dict.fromkeys(cost_arms, 0) for task in tasks}
    for aggregate, arms in cost_arms.items():
        for arm in arms:
            for task in tasks:
                rows = by_arm_task.get((arm, task), [])
                if not rows:
                    return None, f"arm {arm!r} (a cost arm of {aggregate!r}) has no stored request for task {task!r}"
                failed = [r for r in rows if not r.ok]
                if failed:
                    return None, (f"{len(failed)} request(s) of arm {arm!r} on task {task!r} failed, so "
                                  f"{aggregate!r}'s cost is not known")
                unreported = [r for r in rows if r.prompt_tokens is None or r.tokens is None]
                if unreported:
                    return None, (f"{len(unreported)} stored answer(s) of arm {arm!r} on task {task!r} have no "
                                  "input or output token count from the backend, so the budget cannot come from "
                                  "the store")
                per_task[task][aggregate] += sum((r.prompt_tokens or 0) + (r.tokens or 0) for r in rows)
    return per_task, None


def matched_budgets(per_task: PerTask, control: str, candidate: str, tolerance: float, source: str,
                    path: Path | str, field: str = "total_tokens") -> Json:
    """The compared aggregates' budgets (overall and per task), refused unless within ``tolerance``.

    The budget is the total over every task and pool (the cost of running that topology on the whole
    experiment); the gap is |a - b| / max(a, b).
    """
    totals = {name: sum(t[name] for t in per_task.values()) for name in (control, candidate)}
    largest = max(totals.values())
    gap = 0.0 if largest == 0 else abs(totals[control] - totals[candidate]) / largest
    budgets: Json = {"rule": "|a - b| / max(a, b) of the total tokens over every task and pool", "totals": totals,
                     "gap": gap, "tolerance": tolerance, "matched": gap <= tolerance, "source": source,
                     "per_task": {t: {name: v[name] for name in (control, candidate)} for t, v in
                                  sorted(per_task.items())}}
    if gap > tolerance:
        raise InputError(path, f"the compared aggregates are not matched on total tokens: {control} "
                         f"{totals[control]}, {candidate} {totals[candidate]} ({gap:.1%} apart; the plan allows "
                         f"{tolerance:.1%}); the totals are {source}", field=field,
                         hint="T_GPT v0.8.1's E3 is AGG_COVERAGE at matched total-token budget: rebuild the "
                              "aggregates on equal budgets (e.g. as many branches each) before scoring E3")
    return budgets


def token_budgets(rows: list[tuple[int, BudgetedAggregateRow]], control: str, candidate: str, tolerance: float,
                  tasks: list[str], path: Path | str) -> Json:
    """The budgets from the file's self-reported ``total_tokens`` (exploratory: no run store behind them)."""
    per_task = file_totals(rows, (control, candidate), tasks, path)
    return matched_budgets(per_task, control, candidate, tolerance, FILE_SOURCE, path)


def _difference(effects: Json, metric: str, control: str, candidate: str) -> Json:
    """candidate - control across tasks, from the table's paired differences (labelled later-minus-earlier)."""
    across = (effects.get("across_tasks") or {}).get(metric) or {}
    forward, backward = f"{candidate}-{control}", f"{control}-{candidate}"
    if forward in across:
        diff = across[forward]["diff"]
        return {"value": diff["value"], "ci": diff["ci"], "p_boot": diff["p_boot"]}
    if backward in across:
        diff = across[backward]["diff"]
        ci = diff["ci"]
        return {"value": None if diff["value"] is None else -diff["value"],
                "ci": None if ci is None else [-ci[1], -ci[0]], "p_boot": diff["p_boot"]}
    return {"value": None, "ci": None, "p_boot": None, "note": "no paired difference (fewer than two pools?)"}


def _ratio(effects: Json, metric: str, control: str, candidate: str) -> Json:
    """candidate / control across tasks (ratio of the across-task means, paired by task), with its interval; NA
    where the control's value is 0. The table orients each pair as its difference (later / earlier name): the other
    way round, value and bounds are inverted (1/x is monotone, so a percentile interval maps onto one), which is
    defined only where the interval is above 0."""
    across = (effects.get("across_tasks") or {}).get(metric) or {}
    forward, backward = f"{candidate}-{control}", f"{control}-{candidate}"
    if forward in across:
        ratio = across[forward].get("ratio") or {"value": None, "ci": None}
        entry: Json = {"value": ratio["value"], "ci": ratio["ci"]}
    elif backward in across:
        ratio = across[backward].get("ratio") or {"value": None, "ci": None}
        value, ci = ratio["value"], ratio["ci"]
        entry = {"value": None if not value else 1.0 / value,
                 "ci": None if not value or ci is None or ci[0] <= 0 else [1.0 / ci[1], 1.0 / ci[0]]}
    else:
        return {"value": None, "ci": None, "note": "no paired ratio (fewer than two pools?)"}
    if entry["value"] is None:
        entry["note"] = f"NA: {control}'s {metric} is 0"
    return entry


def topology_block(metrics: Json, control: str, candidate: str, budgets: Json) -> Json:
    """E3's primary (AGG_COVERAGE, candidate - control) and secondary (MINORITY_RECALL, Holm) with intervals, each
    with the ratio candidate / control (T_GPT v0.8.1: "Always report absolute difference and ratio where defined,
    with confidence intervals")."""
    across = metrics["across_tasks"]
    effects = metrics["effects"]
    primary = _difference(effects, "AGG_COVERAGE", control, candidate)
    secondary = _difference(effects, "MINORITY_RECALL", control, candidate)
    tested = [secondary["p_boot"]] if secondary["p_boot"] is not None else []
    secondary["p_holm"] = holm(tested)[0] if tested else None
    return {
        "experiment": "E3_TOPOLOGY", "control": control, "candidate": candidate, "budgets": budgets,
        "primary": {"endpoint": "AGG_COVERAGE", "difference": primary,
                    "ratio": _ratio(effects, "AGG_COVERAGE", control, candidate),
                    "control": across["AGG_COVERAGE"].get(control), "candidate": across["AGG_COVERAGE"].get(candidate)},
        "secondary": [{"endpoint": "MINORITY_RECALL", "difference": secondary,
                       "ratio": _ratio(effects, "MINORITY_RECALL", control, candidate),
                       "control": across["MINORITY_RECALL"].get(control),
                       "candidate": across["MINORITY_RECALL"].get(candidate)}],
        "holm": {"family": "E3_TOPOLOGY's secondary endpoints (MINORITY_RECALL candidate - control)",
                 "method": "holm", "library": "statsmodels.stats.multitest.multipletests(method='holm')"},
        "intervals": "within a task, branch pools resampled as paired units; across tasks, a task-level bootstrap",
    }
