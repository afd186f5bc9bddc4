"""Rich terminal tables of a semantic metrics result: values with their 95% CIs, NA shown as NA."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.tgpt_caveats import CAVEATS_TITLE, SEMANTIC_CAVEATS
from forgegate.core.verdict import Gate
from forgegate.report.semantic_section import relevance_text
from forgegate.results.base import Estimate
from forgegate.results.semantic import FileInputs, SemanticMetricsBody


def fmt(entry: Estimate | float | None, digits: int = 3) -> str:
    """``0.200 [0.120, 0.290]`` from an ``Estimate`` (a table's cell); a bare number with ``digits`` significant
    digits; NA for null."""
    if not isinstance(entry, Estimate):
        return "NA" if entry is None else f"{entry:.{digits}g}" if isinstance(entry, float) else str(entry)
    value, ci = entry.value, entry.ci
    if value is None:
        return "NA"
    text = f"{value:.{digits}f}"
    if ci:
        text += f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"
    return text


def render_metrics(result: SemanticMetricsBody, console: Console) -> None:
    """One row per task and one across tasks, then sensitivity, unfiltered, controls and the gate.

    The top level is read from the typed result; the per-task, across-task and sensitivity tables are the
    library's keyed JSON objects (the model keeps them as such)."""
    roles = result.roles
    a, b, r = roles.reference, roles.contracted, roles.recovery
    table = Table(title=f"T_GPT semantic support ({result.mode}, tau={result.tau_support}, "
                        f"{result.bootstrap.n_resamples} percentile resamples, seed "
                        f"{result.bootstrap.seed})")
    for col in ("task", f"N {a}/{b}/{r}", "UNMAPPED", f"D_sem {a}/{b}/{r}", "ES_LOSS", "REC_GAIN", "IRREV_OBS"):
        table.add_column(col)
    for task, block in result.tasks.items():
        conds = block.conditions
        ns = "/".join(str(conds[c].n) if c in conds else "-" for c in (a, b, r))
        um = "/".join(f"{rate:.0%}" if c in conds and (rate := conds[c].unmapped_rate) is not None
                      else "-" for c in (a, b, r))
        ds = "/".join(fmt(conds[c].D_sem) if c in conds else "-" for c in (a, b, r))
        table.add_row(task, ns, um, ds, fmt(block.ES_LOSS), fmt(block.REC_GAIN), fmt(block.IRREV_OBS))
    across = result.across_tasks
    table.add_row(f"[bold]across {across.n_tasks} tasks[/]", "", "", "", fmt(across.ES_LOSS),
                  fmt(across.REC_GAIN), fmt(across.IRREV_OBS))
    console.print(table)
    console.print(f"{CAVEATS_TITLE}:")
    for caveat in SEMANTIC_CAVEATS:
        console.print(f"  - {caveat}", markup=False)
    console.print(f"field: {result.field} (not comparable with another field without a bridge)")
    relevance = relevance_text(result.inputs)
    if relevance is not None:
        console.print(escape(relevance))
    if isinstance(result.inputs, FileInputs) and result.inputs.budget_source is not None:
        console.print(escape(f"E3 token budgets: {result.inputs.budget_source}"))
    for which, pools in (("AGG_COVERAGE", across.AGG_COVERAGE), ("MINORITY_RECALL", across.MINORITY_RECALL)):
        if pools:
            console.print(f"{which} across tasks: " + "; ".join(f"{agg} {fmt(v)}" for agg, v in pools.items()))
    sens = "; ".join(f"tau {tau}: ES_LOSS {fmt(block.across_tasks.ES_LOSS)}, "
                     f"REC_GAIN {fmt(block.across_tasks.REC_GAIN)}"
                     for tau, block in result.sensitivity.items())
    console.print(f"sensitivity (point estimates): {sens}")
    unf = result.unfiltered.across_tasks
    console.print(f"unfiltered (every cluster relevant): ES_LOSS {fmt(unf.ES_LOSS)}, "
                  f"REC_GAIN {fmt(unf.REC_GAIN)}, IRREV_OBS {fmt(unf.IRREV_OBS)}")
    failed = [c.name for c in result.controls if not c.passed]
    console.print(f"controls: {'all passed' if not failed else 'FAILED: ' + ', '.join(failed)}")
    console.print(f"gate: [bold]{result.gate.value}[/]")
    for reason in result.reasons:
        if reason.outcome is not Gate.PASS:
            console.print(f"  {reason.outcome.value}: {reason.detail}")
