"""A plan's E3_TOPOLOGY: the aggregates file read when scoring, its token budgets matched, the E3 block.

The aggregates are made from the run's own branch pools after generation, so the file is not a
locked input: missing, the semantic verdict is INCOMPLETE (``gate.semantic.topology_missing``) and a
re-run scores it without regenerating; present, it must be matched on total tokens between the two
declared aggregates (``semantic.topology.token_budgets``) or the run refuses to score it (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgegate.core.verdict import Verdict
from forgegate.gate.semantic import topology_missing
from forgegate.plan import LoadedPlan, SemanticParams
from forgegate.semantic.pools import AggregateInput
from forgegate.semantic.topology import read_budgeted, token_budgets, topology_block
from forgegate.semantic.validate import check_aggregates

Json = dict[str, Any]


@dataclass(frozen=True)
class TopologyInputs:
    """The checked branch-pool aggregates (empty when none), their budgets, or why there are none."""

    pools: dict[str, list[AggregateInput]]
    budgets: Json | None
    missing: str | None


def topology_inputs(loaded: LoadedPlan, params: SemanticParams, grouped: dict[str, dict[str, list[str]]],
                    relevance: dict[str, int]) -> TopologyInputs:
    """Read and check the declared aggregates file; a budget mismatch or a bad row raises InputError."""
    declared = params.aggregation
    if declared is None:
        return TopologyInputs({}, None, None)
    path = loaded.resolve(declared.aggregates)
    if not path.is_file():
        return TopologyInputs({}, None, f"{path} not found: write one row per task, pool (arm) and aggregate "
                                        "{task, pool, aggregate, clusters, total_tokens} from this run's pools "
                                        "(the assignments beside the run store), then re-run (nothing is regenerated)")
    rows = read_budgeted(path)
    pools = check_aggregates([(line, row.plain()) for line, row in rows], grouped, relevance, path)
    budgets = token_budgets(rows, declared.control, declared.candidate, declared.budget_tolerance, sorted(grouped),
                            path)
    return TopologyInputs(pools, budgets | {"path": str(path)}, None)


def finish_topology(params: SemanticParams, inputs: TopologyInputs, metrics: Json,
                    verdict: Verdict) -> tuple[Json | None, Verdict]:
    """The E3 block (None when the plan is not E3) and the verdict with E3's missing-file reason if any."""
    declared = params.aggregation
    if declared is None:
        return None, verdict
    if inputs.missing is not None:
        return ({"experiment": "E3_TOPOLOGY", "scored": False, "note": inputs.missing},
                topology_missing(verdict, inputs.missing))
    assert inputs.budgets is not None
    return topology_block(metrics, declared.control, declared.candidate, inputs.budgets) | {"scored": True}, verdict
