"""`semantic metrics` from files: read samples, relevance and aggregates, check them, compute the table."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from forgegate.core.experiments import RECURRENCE_ENDPOINT, primary_endpoint
from forgegate.errors import InputError, UsageError
from forgegate.semantic.analysis import MetricsRequest, MetricsTable, compute_metrics
from forgegate.semantic.bootstrap import N_RESAMPLES, BootstrapSettings
from forgegate.semantic.input_rows import read_aggregates, read_samples
from forgegate.semantic.pools import AggregateInput
from forgegate.semantic.relevance_record import load_relevance
from forgegate.semantic.taskstats import Roles
from forgegate.semantic.topology import MATCHED_BUDGET, read_budgeted, token_budgets
from forgegate.semantic.validate import (
    check_aggregates,
    check_relevance,
    check_roles,
    check_sample_sizes,
    group_samples,
)

OUTSIDE_PLAN = ("outside a plan: nothing here shows a codebook frozen under an entailment judge, a completed blinded "
                "validation, an adjudication checked against the study author, or T_GPT's pre-registered values; a "
                "confirmatory table comes from a confirmatory plan (forgegate plan check, then forgegate run)")
"""Why ``semantic metrics`` on files never labels its table confirmatory (the conditions ``pipeline.confirmatory``
checks for a plan cannot be shown by a samples file and a relevance file)."""


def metrics_from_files(
    samples: Path,
    relevance: Path,
    roles: Roles,
    *,
    aggregates: Path | None = None,
    seed: int,
    exploratory: bool = False,
    experiment: str | None = None,
    primary: str | None = None,
    n_resamples: int = N_RESAMPLES,
) -> MetricsTable:
    """The metrics table for the files; bad rows raise InputError, a refused use raises UsageError."""
    check_roles(roles.reference, roles.contracted, roles.recovery)
    endpoint = primary_endpoint(experiment, primary)
    if endpoint == RECURRENCE_ENDPOINT:
        raise UsageError(f"{RECURRENCE_ENDPOINT} comes from a blinded annotation sheet, not from cluster "
                         "assignments: declare it in a plan's [instruments.semantic.recurrence]")
    rows = read_samples(samples)
    rel = load_relevance(relevance).labels  # a bare R(c) file or an adjudicated record
    check_relevance(rows, rel, relevance)
    grouped = group_samples(rows)
    if not any(roles.reference in conds for conds in grouped.values()):
        raise InputError(samples, f"no sample has condition {roles.reference!r} (named by --reference)",
                         field="condition", hint="check the condition names in the samples file")
    small = check_sample_sizes(grouped, exploratory)
    if endpoint == "AGG_COVERAGE" and aggregates is not None:
        pools = matched_pools(aggregates, grouped, rel)
    else:
        pools = check_aggregates(read_aggregates(aggregates), grouped, rel, aggregates) if aggregates else {}
    if endpoint == "AGG_COVERAGE" and not pools:
        raise UsageError(f"{experiment}'s primary endpoint is AGG_COVERAGE: pass --aggregates")
    request = MetricsRequest(grouped, rel, roles, BootstrapSettings(seed=seed, n_resamples=n_resamples),
                             aggregates=pools, exploratory=exploratory, small_conditions=tuple(small),
                             experiment=experiment, primary_endpoint=primary)
    table = compute_metrics(request)
    out = table.body
    if out["mode"] == "confirmatory":  # issue 36: outside a plan nothing shows the confirmatory conditions
        out["mode"], out["exploratory_reasons"] = "exploratory", [OUTSIDE_PLAN]
    out["inputs"] = {"samples": str(samples), "relevance": str(relevance),
                     "aggregates": str(aggregates) if aggregates else None}
    return table



def matched_pools(path: Path, grouped: dict[str, dict[str, list[str]]],
                  relevance: dict[str, int]) -> dict[str, list[AggregateInput]]:
    """E3_TOPOLOGY from files: "AGG_COVERAGE at matched total-token budget", so every row states its
    ``total_tokens`` and every two aggregates are matched within ``MATCHED_BUDGET`` (issue 36: it checked none)."""
    rows = read_budgeted(path)
    names = sorted({row.aggregate for _, row in rows})
    for first, second in combinations(names, 2):
        token_budgets(rows, first, second, MATCHED_BUDGET, sorted(grouped), path)
    return check_aggregates([(line, row.plain()) for line, row in rows], grouped, relevance, path)
