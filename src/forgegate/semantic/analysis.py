"""The semantic metrics table: every task and variant, CIs, effects, Holm, controls, in the issue's JSON shape.

It measures and runs its controls; it does not word the table. What the gate reads (the controls, the tasks that
miss a condition, the declared primary endpoint's values) travels beside the table in a ``MetricsTable``, and the
pipeline (``pipeline/semantic/table.py``) hands it to ``gate.semantic.metrics_verdict``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from forgegate.core.experiments import RECURRENCE_ENDPOINT, primary_endpoint
from forgegate.semantic import formulas as f
from forgegate.semantic.bootstrap import (
    BootResult,
    BootstrapSettings,
    Interval,
    bootstrap_p_value,
    holm,
    intervals,
    resample_samples,
    resample_units,
    unit_means,
)
from forgegate.semantic.fields import TABLE_FIELD
from forgegate.semantic.metric_controls import run_controls
from forgegate.semantic.pools import AggregateInput, pool_table
from forgegate.semantic.roles import endpoint_labels, primary_declaration
from forgegate.semantic.taskstats import CONDITION_METRICS, PAIR_METRICS, Roles, TaskData, TaskStatistic, Variant

FloatArray = NDArray[np.float64]
Json = dict[str, Any]


@dataclass(frozen=True)
class MetricsRequest:
    """Frozen assignments grouped as task -> condition -> cluster labels, and how to read them."""

    grouped: dict[str, dict[str, list[str]]]
    relevance: dict[str, int]
    roles: Roles
    settings: BootstrapSettings
    aggregates: dict[str, list[AggregateInput]] = field(default_factory=dict)
    exploratory: bool = False
    small_conditions: tuple[str, ...] = ()
    experiment: str | None = None
    primary_endpoint: str | None = None
    """The plan's declaration, for experiments whose spec endpoint names no single metric (E1, E4)."""
    tau: float = f.TAU_SUPPORT
    minimum_count: int = f.MINIMUM_COUNT
    sensitivity: tuple[float, ...] = f.SENSITIVITY_TAUS


def num(x: float | None) -> float | None:
    """JSON number or null for NA."""
    if x is None or math.isnan(x):
        return None
    return float(x)


def metric(value: float, interval: Interval | None, *, with_na: bool = False) -> Json:
    out: Json = {"value": num(value), "ci": interval.as_list() if interval and num(value) is not None else None}
    if with_na:
        out["na_resamples"] = interval.na_fraction if interval else None
    return out


@dataclass
class _Values:
    """Named point estimates with their intervals (None when no resampling was possible)."""

    point: dict[tuple[str, ...], float] = field(default_factory=dict)
    ci: dict[tuple[str, ...], Interval | None] = field(default_factory=dict)
    dist: dict[tuple[str, ...], FloatArray] = field(default_factory=dict)

    def add(self, names: Sequence[tuple[str, ...]], point: FloatArray, boot: BootResult | None,
            level: float) -> None:
        ivals: list[Interval | None] = [None] * len(names)
        if boot is not None:
            ivals = list(intervals(boot, level))
        for i, name in enumerate(names):
            self.point[name] = float(point[i])
            self.ci[name] = ivals[i]
            if boot is not None:
                self.dist[name] = boot.distribution[i]

    def get(self, name: tuple[str, ...], *, with_na: bool = False) -> Json:
        return metric(self.point.get(name, math.nan), self.ci.get(name), with_na=with_na)


class _Analysis:
    def __init__(self, req: MetricsRequest) -> None:
        self.req = req
        taus = (req.tau, *req.sensitivity)
        self.variants = tuple(Variant(t, filt) for t in taus for filt in (True, False))
        self.primary = Variant(req.tau, True)
        self.boot_variants = (self.primary, Variant(req.tau, False))
        self.point_variants = tuple(v for v in self.variants if v not in self.boot_variants)
        self.values: dict[str, _Values] = {}
        self.stats: dict[str, TaskStatistic] = {}
        self.pool_names: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self.pool_ratios: dict[tuple[str, str], tuple[tuple[str, str], tuple[str, str], str]] = {}
        """(metric:ratio, b/a) -> the numerator's and denominator's (metric, aggregate) and the difference's label."""
        self.incomplete: list[str] = []

    def run_task(self, task: str) -> None:
        conds = self.req.grouped[task]
        data = TaskData.build(task, conds)
        roles = self.req.roles
        missing = [c for c in (roles.reference, roles.contracted, roles.recovery) if c not in conds]
        if missing:
            self.incomplete.append(f"task {task!r} has no samples for condition(s) {', '.join(missing)}")
        values = _Values()
        settings = self.req.settings
        for variants, boot in ((self.boot_variants, True), (self.point_variants, False)):
            stat = TaskStatistic(data, tuple(sorted(conds)), variants, self.req.relevance,
                                 None if missing else roles, self.req.minimum_count,
                                 effect_variant=self.primary.key)
            result = None
            if boot:
                labels = [data.labels[c] for c in stat.conditions]
                result = resample_samples(labels, stat, settings, settings.rng_for(task), len(stat.names))
            values.add(stat.names, stat.point(), result, settings.confidence_level)
            if boot:
                self.stats[task] = stat
        self.pool_names[task] = {}
        for v in self.variants:
            if task not in self.req.aggregates:
                break
            table = pool_table(data, self.req.aggregates[task], self.req.relevance, v, self.req.minimum_count)
            names, matrix = table.columns()
            ratios = table.ratios(names)
            for ratio, top, bottom, diff_label in ratios:
                self.pool_ratios[ratio] = (names[top], names[bottom], diff_label)
            pairs = [(top, bottom) for _, top, bottom, _ in ratios]
            keyed = [(v.key, "pool", m, label) for m, label in [*names, *(r for r, _, _, _ in ratios)]]
            pdist = (resample_units(matrix, settings, settings.rng_for(f"{task}/pools"), pairs)
                     if v in self.boot_variants else None)
            values.add(keyed, unit_means(matrix, pairs), pdist, settings.confidence_level)
            for (m, label), row in zip(names, matrix.T, strict=True):
                if ":" not in m:
                    for pool, x in zip(table.pools, row, strict=True):
                        values.point[(v.key, "pool-cell", m, label, pool)] = float(x)
            self.pool_names[task][v.key] = names
        self.values[task] = values

    def condition_block(self, task: str, v: Variant) -> Json:
        stat, vals = self.stats[task], self.values[task]
        support = stat.support_lists(v)
        out: Json = {}
        for c in stat.conditions:
            labels = stat.data.labels[c]
            counts = stat.data.counts(labels)[0]
            n = len(labels)
            out[c] = {
                "n": n,
                "k": stat.floor(c, v.tau),
                "unmapped_rate": num(float(f.unmapped_rate(n, counts[None, :])[0])),
                "support": support[c],
                "D_sem": vals.get((v.key, "condition", c, "D_sem"))["value"],
                "H_sem": vals.get((v.key, "condition", c, "H_sem"))["value"],
                "P": vals.get((v.key, "condition", c, "P"))["value"],
                "counts": {cl: int(x) for cl, x in zip(stat.data.clusters, counts, strict=True) if x}
                | {"UNMAPPED": int(n - counts.sum())},
                "ci": {m: vals.get((v.key, "condition", c, m))["ci"] for m in CONDITION_METRICS},
            }
        return out

    def pool_block(self, task: str, v: Variant, which: str) -> Json:
        vals = self.values[task]
        out: Json = {}
        for m, label in self.pool_names[task].get(v.key, []):
            if m != which:
                continue
            entry = vals.get((v.key, "pool", m, label))
            entry["pools"] = {k[4]: num(x) for k, x in vals.point.items()
                              if k[:4] == (v.key, "pool-cell", m, label)}
            out[label] = entry
        return out

    def task_block(self, task: str, v: Variant) -> Json:
        vals = self.values[task]
        block: Json = {"conditions": self.condition_block(task, v)}
        for m in PAIR_METRICS:
            block[m] = vals.get((v.key, "pair", m), with_na=m != "ES_LOSS")
        block["AGG_COVERAGE"] = self.pool_block(task, v, "AGG_COVERAGE")
        block["MINORITY_RECALL"] = self.pool_block(task, v, "MINORITY_RECALL")
        return block

    def across(self, v: Variant) -> tuple[Json, _Values]:
        """Task-level bootstrap: tasks are the units; NA tasks drop out of each resample's mean."""
        tasks = sorted(self.values)
        found = sorted({n for t in tasks for n in self.values[t].point
                        if n[0] == v.key and n[1] in ("condition", "pair", "effect", "pool")})
        ratio_names = [n for n in found if n[1] == "pool" and (n[2], n[3]) in self.pool_ratios]
        names = [n for n in found if n not in ratio_names]  # a ratio across tasks is one of means, not a mean
        matrix = np.array([[self.values[t].point.get(n, math.nan) for n in names] for t in tasks])
        matrix = matrix.reshape(len(tasks), len(names))
        where = {n: k for k, n in enumerate(names)}
        parts = [self.pool_ratios[(n[2], n[3])] for n in ratio_names]
        pairs = [(where[(v.key, "pool", *top)], where[(v.key, "pool", *bottom)]) for top, bottom, _ in parts]
        vals = _Values()
        dist = (resample_units(matrix, self.req.settings, self.req.settings.rng_for(f"across/{v.key}"), pairs)
                if v in self.boot_variants else None)
        vals.add([*names, *ratio_names], unit_means(matrix, pairs), dist, self.req.settings.confidence_level)
        defined = {n: int((~np.isnan(matrix[:, i])).sum()) for i, n in enumerate(names)}
        defined |= {n: int((~np.isnan(matrix[:, a]) & ~np.isnan(matrix[:, b])).sum())
                    for n, (a, b) in zip(ratio_names, pairs, strict=True)}

        def entry(name: tuple[str, ...], with_na: bool = False) -> Json:
            return vals.get(name, with_na=with_na) | {"n_tasks": defined.get(name, 0)}

        conds: Json = {}
        for n in names:
            if n[1] == "condition":
                conds.setdefault(n[2], {})[n[3]] = entry(n)
        out: Json = {"n_tasks": len(tasks), "conditions": conds}
        for m in PAIR_METRICS:
            out[m] = entry((v.key, "pair", m), with_na=m != "ES_LOSS")
        for which in ("AGG_COVERAGE", "MINORITY_RECALL"):
            out[which] = {n[3]: entry(n) for n in names if n[1] == "pool" and n[2] == which}
        return out, vals

    def block(self, v: Variant) -> tuple[Json, _Values]:
        across, vals = self.across(v)
        return {"tasks": {t: self.task_block(t, v) for t in sorted(self.values)}, "across_tasks": across}, vals

    def _ratio_of(self, metric_name: str, diff_label: str) -> tuple[str, str]:
        """The (metric:ratio, b/a) name of the ratio beside the aggregate difference ``b-a``."""
        return next(r for r, (_, _, label) in self.pool_ratios.items()
                    if r[0] == f"{metric_name}:ratio" and label == diff_label)

    def effects(self, v: Variant, across_vals: _Values) -> tuple[Json, Json]:
        """Absolute difference and ratio with CIs; bootstrap p of each difference, Holm across the family."""
        sources = [(t, self.values[t]) for t in sorted(self.values)] + [("across_tasks", across_vals)]
        tests: list[tuple[str, tuple[str, ...], float]] = []
        out: Json = {}
        for unit, vals in sources:
            for name in vals.point:
                is_effect = name[0] == v.key and name[1] == "effect" and name[4] == "diff"
                is_pool_diff = name[0] == v.key and name[1] == "pool" and name[2].endswith(":diff")
                if not (is_effect or is_pool_diff):
                    continue
                p = bootstrap_p_value(vals.dist[name]) if name in vals.dist else None
                if p is not None and num(vals.point[name]) is not None:
                    tests.append((unit, name, p))
                if is_effect:
                    slot = out.setdefault(unit, {}).setdefault(name[2], {}).setdefault(name[3], {})
                    slot["diff"] = vals.get(name) | {"p_boot": p, "p_holm": None}
                    slot["ratio"] = vals.get((*name[:4], "ratio"))
                else:
                    metric_name = name[2].split(":")[0]
                    slot = out.setdefault(unit, {}).setdefault(metric_name, {})
                    slot[name[3]] = {"diff": vals.get(name) | {"p_boot": p, "p_holm": None},
                                     "ratio": vals.get((*name[:2], *self._ratio_of(metric_name, name[3])))}
        adjusted = holm([p for _, _, p in tests])
        rows = []
        for (unit, name, p), p_adj in zip(tests, adjusted, strict=True):
            if name[1] == "effect":
                out[unit][name[2]][name[3]]["diff"]["p_holm"] = p_adj
                endpoint, comparison = name[3], name[2]
            else:
                out[unit][name[2].split(":")[0]][name[3]]["diff"]["p_holm"] = p_adj
                endpoint, comparison = name[2].split(":")[0], name[3]
            rows.append({"unit": unit, "endpoint": endpoint, "comparison": comparison, "p_boot": p,
                         "p_holm": p_adj})
        family = {"method": "holm", "library": "statsmodels.stats.multitest.multipletests(method='holm')",
                  "family": "secondary endpoint differences of this analysis (one experiment family)",
                  "p_value": "two-sided bootstrap: 2 x the smaller share of resampled differences at or "
                             "beyond 0", "tests": rows}
        return out, family


@dataclass(frozen=True)
class MetricsTable:
    """The table as measured: ``body`` is its JSON without a verdict; the rest is what the gate words it by."""

    body: Json
    controls: list[Json]
    """The metric controls (``name``, ``expected``, ``observed``, ``passed``), also ``body["controls"]``."""
    incomplete: tuple[str, ...]
    """Tasks that miss one of the roles' conditions, one sentence each."""
    primaries: tuple[tuple[str, Json], ...]
    """The declared primary endpoint's across-task value(s), labelled (``primary_values``)."""


def primary_values(endpoint: str, across: Json) -> list[tuple[str, Json]]:
    """The across-task value(s) of a declared primary endpoint: one per aggregate for AGG_COVERAGE."""
    if endpoint in PAIR_METRICS:
        return [(endpoint, {"endpoint": endpoint, **across[endpoint]})]
    if endpoint == RECURRENCE_ENDPOINT:  # E4: a blinded annotation sheet decides it, not this table
        return []
    per_aggregate: Json = across.get(endpoint) or {}
    if not per_aggregate:
        return [(endpoint, {"endpoint": endpoint, "value": None, "ci": None,
                            "note": "no branch-pool aggregates were given (--aggregates)"})]
    return [(f"{endpoint}[{name}]", {"endpoint": endpoint, **entry}) for name, entry in sorted(per_aggregate.items())]


def compute_metrics(req: MetricsRequest) -> MetricsTable:
    """The full metrics table (see the issue's shape) and what the gate needs to say whether it may be used."""
    analysis = _Analysis(req)
    for task in sorted(req.grouped):
        analysis.run_task(task)
    by_key = {v.key: v for v in analysis.variants}
    primary = by_key[Variant(req.tau, True).key]
    unfiltered = by_key[Variant(req.tau, False).key]
    main, main_vals = analysis.block(primary)
    unf, _ = analysis.block(unfiltered)
    sensitivity: Json = {}
    sensitivity_unf: Json = {}
    for tau in req.sensitivity:
        sensitivity[f"{tau:g}"], _ = analysis.block(by_key[Variant(tau, True).key])
        sensitivity_unf[f"{tau:g}"], _ = analysis.block(by_key[Variant(tau, False).key])
    effects, family = analysis.effects(primary, main_vals)
    controls = run_controls(req.minimum_count, req.tau)
    endpoint = primary_endpoint(req.experiment, req.primary_endpoint)
    primaries = primary_values(endpoint, main["across_tasks"]) if endpoint is not None else []
    mode = "exploratory" if req.exploratory else "confirmatory"
    body: Json = {
        "schema": "T_GPT_METRICS_V0_8_1",
        "field": TABLE_FIELD,
        "bridges": [],
        "mode": mode,
        "exploratory_reasons": list(req.small_conditions) if req.exploratory else [],
        "experiment": req.experiment,
        "primary_endpoint": primary_declaration(req.experiment, req.primary_endpoint),
        "endpoints": endpoint_labels(req.experiment, req.exploratory, req.primary_endpoint),
        "roles": {"reference": req.roles.reference, "contracted": req.roles.contracted,
                  "recovery": req.roles.recovery},
        "tau_support": req.tau,
        "minimum_count": req.minimum_count,
        "sensitivity_taus": list(req.sensitivity),
        "bootstrap": req.settings.record() | {
            "within_task": "generations resampled within each task and condition, frozen assignments",
            "across_tasks": "task-level bootstrap of per-task values (NA tasks left out of each mean)",
            "aggregates": "branch pools resampled as paired units across aggregates"},
        "tasks": main["tasks"],
        "across_tasks": main["across_tasks"],
        "sensitivity": sensitivity,
        "unfiltered": {"tasks": unf["tasks"], "across_tasks": unf["across_tasks"],
                       "sensitivity": sensitivity_unf},
        "effects": effects,
        "holm": family,
        "controls": controls,
    }
    return MetricsTable(body, controls, tuple(analysis.incomplete), tuple(primaries))
