"""A plan's E3_TOPOLOGY: the aggregates file read when scoring, its token budgets from the run store, the E3 block.

The aggregates are made from the run's own branch pools after generation, so the file cannot be in the plan hash:
missing, the semantic verdict is INCOMPLETE (``gate.semantic.topology_missing``) and a re-run scores it without
regenerating. The first time it is scored its sha256 is sealed into the plan's lock; a later scoring of changed
bytes is refused (exit 2, ``plan.lock.seal_input``): E3's primary rests on it. The two declared aggregates must be
matched on total tokens (``semantic.topology.matched_budgets``) or the run refuses to score E3 (exit 2). Their
budgets come from the run store where the plan names each aggregate's ``cost_arms`` (T_GPT's "matched
total-token budget" with the token totals taken from the store, not from a file); a store that cannot give them
leaves E3 INCOMPLETE (``gate.semantic.topology_budget_unknown``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from forgegate.core.records import StoredResponse
from forgegate.core.verdict import Verdict
from forgegate.errors import InputError
from forgegate.gate.semantic import topology_budget_unknown, topology_missing
from forgegate.jsonio import read_bytes_or_input_error
from forgegate.plan import LoadedPlan, SemanticParams
from forgegate.plan.lock import LockedPlan, seal_input
from forgegate.semantic.pools import AggregateInput
from forgegate.semantic.topology import (
    matched_budgets,
    read_budgeted,
    refuse_file_tokens,
    stored_totals,
    token_budgets,
    topology_block,
)
from forgegate.semantic.validate import check_aggregates

Json = dict[str, Any]

STORE_SOURCE = "the run store's input + output tokens of each aggregate's cost_arms"


@dataclass(frozen=True)
class TopologyInputs:
    """The checked branch-pool aggregates (empty when none), their budgets, or why there are none."""

    pools: dict[str, list[AggregateInput]]
    budgets: Json | None
    missing: str | None
    unbudgeted: str | None = None
    """Why the run store cannot give the budgets (the aggregates are there, the cost is not)."""
    sha256: str | None = None
    """sha256 of the aggregates file's bytes as scored (and sealed into the lock)."""


def topology_inputs(loaded: LoadedPlan, params: SemanticParams, grouped: dict[str, dict[str, list[str]]],
                    relevance: dict[str, int], stored: Sequence[StoredResponse] = (),
                    locked: LockedPlan | None = None) -> TopologyInputs:
    """Read and check the declared aggregates file and the budgets; a mismatch or a bad row raises InputError.
    ``locked``: the run's locked plan, into whose lock the file's bytes are sealed when first scored (a changed
    file is refused after that: ``plan.lock.seal_input``)."""
    declared = params.aggregation
    if declared is None:
        return TopologyInputs({}, None, None)
    path = loaded.resolve(declared.aggregates)
    if not path.is_file():
        cost = "" if declared.cost_arms is not None else ", total_tokens"
        return TopologyInputs({}, None, f"{path} not found: write one row per task, pool (arm) and aggregate "
                                        f"{{task, pool, aggregate, clusters{cost}}} from this run's pools "
                                        "(the assignments beside the run store), then re-run (nothing is regenerated)")
    # read once: the bytes sealed are the bytes scored
    raw = read_bytes_or_input_error(path, what="E3's aggregate-coverage file")
    digest = hashlib.sha256(raw).hexdigest()
    if locked is not None:
        seal_input(locked, declared.aggregates, raw, "E3's aggregate-coverage file, [instruments.semantic.aggregation]")
    rows = read_budgeted(path, raw)
    pools = check_aggregates([(line, row.plain()) for line, row in rows], grouped, relevance, path)
    tasks = sorted(grouped)
    if declared.cost_arms is None:
        budgets = token_budgets(rows, declared.control, declared.candidate, declared.budget_tolerance, tasks, path)
        return TopologyInputs(pools, budgets | {"path": str(path)}, None, sha256=digest)
    refuse_file_tokens(rows, path)
    per_task, why = stored_totals(stored, declared.cost_arms, tasks)
    if per_task is None:
        return TopologyInputs(pools, None, None, unbudgeted=why, sha256=digest)
    try:
        budgets = matched_budgets(per_task, declared.control, declared.candidate, declared.budget_tolerance,
                                  STORE_SOURCE, loaded.path)
    except InputError as exc:  # the pre-registered design did not spend matched budgets: say so at its line
        where = ("instruments", "semantic", "aggregation", "cost_arms")
        raise loaded.error(where, exc.message, exc.hint) from None
    cost_arms = {name: list(arms) for name, arms in declared.cost_arms.items()}
    return TopologyInputs(pools, budgets | {"path": str(path), "cost_arms": cost_arms}, None, sha256=digest)


def finish_topology(params: SemanticParams, inputs: TopologyInputs, metrics: Json,
                    verdict: Verdict) -> tuple[Json | None, Verdict]:
    """The E3 block (None when the plan is not E3) and the verdict with E3's missing-input reason if any."""
    declared = params.aggregation
    if declared is None:
        return None, verdict
    if inputs.missing is not None:
        return ({"experiment": "E3_TOPOLOGY", "scored": False, "note": inputs.missing},
                topology_missing(verdict, inputs.missing))
    if inputs.unbudgeted is not None:
        return ({"experiment": "E3_TOPOLOGY", "scored": False, "note": inputs.unbudgeted},
                topology_budget_unknown(verdict, inputs.unbudgeted))
    assert inputs.budgets is not None
    return (topology_block(metrics, declared.control, declared.candidate, inputs.budgets)
            | {"scored": True, "aggregates_sha256": inputs.sha256}, verdict)
