"""`semantic metrics` from files: read samples, relevance and aggregates, check them, compute the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from forgegate.semantic.topology import (
    FILE_SOURCE,
    MATCHED_BUDGET,
    matched_budgets,
    read_budgeted,
    refuse_file_tokens,
    stored_totals,
    token_budgets,
)
from forgegate.semantic.validate import (
    check_aggregates,
    check_relevance,
    check_roles,
    check_sample_sizes,
    group_samples,
)
from forgegate.store import RunStore

OUTSIDE_PLAN = ("outside a plan: nothing here shows a codebook frozen under an entailment judge, a completed blinded "
                "validation, an adjudication checked against the study author, or T_GPT's pre-registered values; a "
                "confirmatory table comes from a confirmatory plan (forgegate plan check, then forgegate run)")
"""Why ``semantic metrics`` on files never labels its table confirmatory (the conditions ``pipeline.plan.confirmatory``
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
    store: Path | None = None,
    cost_arms: Sequence[str] = (),
) -> MetricsTable:
    """The metrics table for the files; bad rows raise InputError, a refused use raises UsageError.

    E3_TOPOLOGY's budgets come from ``store`` (a run store) summed over each aggregate's ``cost_arms``
    (``AGGREGATE=ARM[,ARM]``) where one is given; otherwise from the file's self-reported ``total_tokens``, and the
    table says so."""
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
    if (store is not None or cost_arms) and (endpoint != "AGG_COVERAGE" or aggregates is None):
        raise UsageError("--store and --cost-arms give E3_TOPOLOGY's token budgets: use them with --experiment "
                         "E3_TOPOLOGY and --aggregates")
    budget_source: str | None = None
    if endpoint == "AGG_COVERAGE" and aggregates is not None:
        pools, budget_source = matched_pools(aggregates, grouped, rel, store, parse_cost_arms(cost_arms, store))
    else:
        pools = check_aggregates(read_aggregates(aggregates), grouped, rel, aggregates) if aggregates else {}
    if endpoint == "AGG_COVERAGE" and not pools:
        raise UsageError(f"{experiment}'s primary endpoint is AGG_COVERAGE: pass --aggregates")
    request = MetricsRequest(grouped, rel, roles, BootstrapSettings(seed=seed, n_resamples=n_resamples),
                             aggregates=pools, exploratory=exploratory, small_conditions=tuple(small),
                             experiment=experiment, primary_endpoint=primary)
    table = compute_metrics(request)
    out = table.body
    if out["mode"] == "confirmatory":  # outside a plan nothing shows the confirmatory conditions
        out["mode"], out["exploratory_reasons"] = "exploratory", [OUTSIDE_PLAN]
    if budget_source == FILE_SOURCE:
        out["exploratory_reasons"].append(f"E3's budgets are {FILE_SOURCE} (give --store and --cost-arms)")
    out["inputs"] = {"samples": str(samples), "relevance": str(relevance),
                     "aggregates": str(aggregates) if aggregates else None,
                     "store": str(store) if store is not None else None, "budget_source": budget_source}
    return table


def parse_cost_arms(values: Sequence[str], store: Path | None) -> dict[str, tuple[str, ...]] | None:
    """``--cost-arms vote=A --cost-arms merge=B,S`` as {aggregate: arms}; None without a store."""
    if store is None:
        if values:
            raise UsageError("--cost-arms names arms of a run store: give the store with --store")
        return None
    out: dict[str, tuple[str, ...]] = {}
    for value in values:
        name, _, arms = value.partition("=")
        named = tuple(a.strip() for a in arms.split(",") if a.strip())
        if not name.strip() or not named or name.strip() in out:
            raise UsageError(f"--cost-arms {value!r}: write AGGREGATE=ARM[,ARM...], once per aggregate")
        out[name.strip()] = named
    return out



def matched_pools(path: Path, grouped: dict[str, dict[str, list[str]]], relevance: dict[str, int],
                  store: Path | None = None, cost_arms: Mapping[str, Sequence[str]] | None = None,
                  ) -> tuple[dict[str, list[AggregateInput]], str]:
    """E3_TOPOLOGY from files: "AGG_COVERAGE at matched total-token budget", so every two aggregates are matched
    within ``MATCHED_BUDGET``, on the token totals of the run store when one is given
    (each aggregate's ``cost_arms``), else on each row's self-reported ``total_tokens``. Returns the source too."""
    rows = read_budgeted(path)
    names = sorted({row.aggregate for _, row in rows})
    tasks = sorted(grouped)
    if store is None or cost_arms is None:
        for first, second in combinations(names, 2):
            token_budgets(rows, first, second, MATCHED_BUDGET, tasks, path)
        source = FILE_SOURCE
    else:
        refuse_file_tokens(rows, path)
        unnamed = [n for n in names if n not in cost_arms]
        if unnamed:
            raise UsageError(f"aggregate {unnamed[0]!r} of {path} has no --cost-arms: name the store arms it cost")
        with RunStore.open(store, create=False, readonly=True) as opened:
            stored = opened.latest()
        per_task, why = stored_totals(stored, {n: cost_arms[n] for n in names}, tasks)
        if per_task is None:
            raise UsageError(f"E3's budgets cannot come from the run store {store}: {why}")
        source = f"the run store {store}: input + output tokens of each aggregate's --cost-arms"
        for first, second in combinations(names, 2):
            matched_budgets(per_task, first, second, MATCHED_BUDGET, source, store, field="--cost-arms")
    return check_aggregates([(line, row.plain()) for line, row in rows], grouped, relevance, path), source
