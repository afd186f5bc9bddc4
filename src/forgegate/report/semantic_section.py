"""T_GPT semantic metrics as report data: metrics with CIs, sensitivity, UNMAPPED rates, cluster mass charts.

Read from the typed ``T_GPT_METRICS`` result of ``forgegate semantic metrics``. A cluster is marked
lost when it is in the reference condition's support list and not in the contracted
condition's (the lists the JSON carries for the primary, relevance-filtered analysis);
probability mass is each cluster's count over the condition's N, UNMAPPED included.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.rules import control_word
from forgegate.core.tgpt_caveats import CAVEATS_TITLE, SEMANTIC_CAVEATS
from forgegate.report.fmt import num, percent, with_ci
from forgegate.report.plots import cluster_mass_chart
from forgegate.report.table import Table
from forgegate.results.base import Estimate
from forgegate.results.semantic import FileInputs, PlanInputs, SemanticMetricsBody
from forgegate.results.semantic_tables import TaskBlock

PAIR = ("ES_LOSS", "REC_GAIN", "IRREV_OBS")
UNMAPPED = "UNMAPPED"
"""The count key of samples mapped to no frozen cluster (the semantic library's label)."""
CONDITION = ("D_sem", "H_sem", "P")


@dataclass(frozen=True)
class TaskChart:
    task: str
    lost: tuple[str, ...]
    svg: str


@dataclass(frozen=True)
class SemanticView:
    mode: str
    exploratory_reasons: tuple[str, ...]
    experiment: str
    roles: dict[str, str]
    tau: str
    bootstrap: str
    endpoints: Table
    across: Table
    conditions: Table
    tasks: Table
    unmapped: Table
    sensitivity: Table
    unfiltered: Table
    controls: Table
    charts: tuple[TaskChart, ...]
    field: str = "FIELD_SEM"
    relevance: str | None = None
    caveats: tuple[str, ...] = ()
    """T_GPT's statements of what the metrics do not mean (``core.tgpt_caveats``), shown once under the table."""
    caveats_title: str = ""


def _role_order(result: SemanticMetricsBody) -> tuple[str, str, str]:
    roles = result.roles
    return roles.reference, roles.contracted, roles.recovery


def task_chart(task: str, block: TaskBlock, order: tuple[str, str, str]) -> TaskChart:
    conds = block.conditions
    present = [c for c in order if c in conds] + [c for c in conds if c not in order]
    clusters = sorted({cl for c in present for cl in conds[c].counts if cl != UNMAPPED})
    if any(conds[c].counts.get(UNMAPPED) for c in present):
        clusters.append(UNMAPPED)
    mass = {c: {cl: n / conds[c].n for cl, n in conds[c].counts.items() if conds[c].n} for c in present}
    reference, contracted, _ = order
    lost: tuple[str, ...] = ()
    if reference in conds and contracted in conds:
        kept = set(conds[contracted].support)
        lost = tuple(c for c in conds[reference].support if c not in kept)
    svg = cluster_mass_chart(mass, clusters, lost=lost,
                             title=f"task {task}: cluster probability mass (lost in {contracted}: "
                                   f"{', '.join(lost) or 'none'})")
    return TaskChart(task, lost, svg)


def relevance_text(inputs: FileInputs | PlanInputs) -> str | None:
    """Who annotated R(c), who adjudicated, when, and the agreement (a plan run's adjudicated record); what
    stands in for it otherwise; None for ``semantic metrics`` from files (its input is the path)."""
    if not isinstance(inputs, PlanInputs):
        return None
    rel = inputs.relevance
    adj = rel.adjudication
    if not adj:
        return f"R(c) not adjudicated: {rel.note or str(rel.path) + ' is a bare cluster/relevant file'}"
    kappa = adj.cohens_kappa
    return (f"R(c) adjudicated by {adj.adjudicator} at {adj.adjudicated_at}; annotators "
            f"{' and '.join(adj.annotators)} (plan author {adj.plan_author} excluded); Cohen's kappa "
            f"{'NA' if kappa is None else f'{kappa:.3f}'}, observed agreement {adj.observed_agreement:.3f}, "
            f"{adj.disagreements} adjudicated")


def semantic_view(result: SemanticMetricsBody) -> SemanticView:
    """Every table read from the typed result (``results.semantic_tables``), by attribute."""
    order = _role_order(result)
    across = result.across_tasks
    endpoints = result.endpoints
    across_rows = tuple((m, endpoints[m].label if m in endpoints else "", with_ci(across.pair(m)),
                         "" if across.pair(m).n_tasks is None else str(across.pair(m).n_tasks),
                         num(across.pair(m).na_resamples))
                        for m in PAIR)
    cond_rows = tuple((c, *(with_ci(across.conditions.get(c, {}).get(m)) for m in CONDITION))
                      for c in order if c in across.conditions)
    task_rows = []
    unmapped_rows = []
    for task, block in result.tasks.items():
        conds = block.conditions
        task_rows.append((task, "/".join(str(conds[c].n) if c in conds else "-" for c in order),
                          "/".join(num(conds[c].D_sem, 0) if c in conds else "-" for c in order),
                          *(with_ci(block.pair(m)) for m in PAIR)))
        unmapped_rows.append((task, *(f"{percent(conds[c].unmapped_rate)} ({conds[c].counts.get(UNMAPPED, 0)}"
                                      f" of {conds[c].n})" if c in conds else "-" for c in order)))
    sens_rows = [(f"{result.tau_support:g} (primary)", *(with_ci(across.pair(m)) for m in PAIR))]
    for tau, tables in result.sensitivity.items():
        sens_rows.append((tau, *(with_ci(Estimate(value=tables.across_tasks.pair(m).value, ci=None)) for m in PAIR)))
    unf = result.unfiltered.across_tasks
    unf_rows = ((f"{result.tau_support:g}, every cluster relevant", *(with_ci(unf.pair(m)) for m in PAIR)),)
    control_rows = tuple((c.name, str(c.expected), str(c.observed), control_word(c.passed)) for c in result.controls)
    endpoint_rows = tuple((m, e.spec_role, e.label) for m, e in endpoints.items())
    boot = result.bootstrap
    a, b, r = order
    return SemanticView(
        caveats=SEMANTIC_CAVEATS, caveats_title=CAVEATS_TITLE,
        mode=result.mode, exploratory_reasons=tuple(result.exploratory_reasons),
        experiment=result.experiment or "not declared", roles=dict(result.roles),
        tau=f"{result.tau_support:g}",
        bootstrap=(f"{boot.n_resamples} {boot.method} resamples, {boot.confidence_level} "
                   f"level, seed {boot.seed} ({boot.library})"),
        endpoints=Table(("endpoint", "spec role", "label in this analysis"), endpoint_rows),
        across=Table(("metric", "role", "across tasks, value [95% CI]", "tasks defined", "NA resamples"),
                     across_rows),
        conditions=Table(("condition", *CONDITION), cond_rows),
        tasks=Table(("task", f"N {a}/{b}/{r}", f"D_sem {a}/{b}/{r}", *PAIR), tuple(task_rows)),
        unmapped=Table(("task", *order), tuple(unmapped_rows)),
        sensitivity=Table(("support tau", *PAIR), tuple(sens_rows)),
        unfiltered=Table(("analysis", *PAIR), unf_rows),
        controls=Table(("control", "expected", "observed", "result"), control_rows),
        charts=tuple(task_chart(t, block, order) for t, block in result.tasks.items()),
        field=result.field, relevance=relevance_text(result.inputs),
    )
