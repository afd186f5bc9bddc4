"""Terminal rendering of a plan's semantic and gloss instruments (the semantic table is semantic.render's)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forgegate.core.rules import RELEVANCE_RULE
from forgegate.core.verdict import Gate
from forgegate.report.eval_terminal import print_eval
from forgegate.report.quality_section import quality_lines
from forgegate.report.sampling_text import sampling_line
from forgegate.report.semantic_extras import codebook_lines, recurrence_lines, topology_lines
from forgegate.report.semantic_terminal import fmt, render_metrics
from forgegate.results.base import Estimate
from forgegate.results.plan_cost import ArmCost, TokenCount
from forgegate.results.plan_run import PlanGloss, PlanSemantic
from forgegate.results.primary import GlossArmValue, GlossPrimaryValue, PrimaryValue


def primary_text(value: PrimaryValue | None) -> str:
    """A semantic or gloss primary endpoint's number as one cell."""
    if value is None:
        return ""
    if isinstance(value, GlossPrimaryValue):
        return f"GLOSS {_gloss_cell(value.candidate)} vs control {_gloss_cell(value.control)}"
    if value.note is not None:
        return f"{value.endpoint}: {value.note}"
    no_rule = "; no rule" if "pass_rule" in value.model_fields_set and value.pass_rule is None else ""
    if "value" in value.model_fields_set:
        return f"{value.endpoint} {fmt(Estimate(value=value.value, ci=value.ci))}{no_rule}"
    return f"{value.endpoint} candidate {fmt(value.candidate)} vs control {fmt(value.control)}{no_rule}"


def _gloss_cell(arm: GlossArmValue) -> str:
    sigma = arm.sigma_total
    return f"{arm.gate.value} (sigma_total {'n/a' if sigma is None else f'{sigma:.3f}'})"


def print_semantic(outcome: PlanSemantic, console: Console) -> None:
    book = outcome.codebook
    console.rule("semantic (T_GPT v0.8.1)")
    judge = book.judge  # the judge's own description (a JudgeRecord); None: the block names no judge
    name, model, threshold = (None, None, None) if judge is None else (judge.judge, judge.model, judge.threshold)
    console.print(f"codebook: {escape(str(book.mode))}")
    if book.path:
        console.print(f"  {escape(str(book.path))}; judge {escape(str(name))} {escape(str(model))}"
                      + (f" threshold {threshold}" if threshold is not None else "")
                      + (f"; content hash {book.content_hash[:16]}" if book.content_hash else ""))
    if book.clusters:
        console.print("  clusters per task: " + ", ".join(f"{escape(t)} {n}" for t, n in book.clusters.items()))
    for line in codebook_lines(book) + topology_lines(outcome.topology) + recurrence_lines(outcome.recurrence):
        console.print(line)
    if outcome.experiment_note:
        console.print(f"experiment: {escape(outcome.experiment_note)}")
    if outcome.metrics is not None:
        render_metrics(outcome.metrics, console)
        for reason in outcome.reasons:  # the plan's own rules on the table (relevance R(c))
            if reason.rule == RELEVANCE_RULE and reason.outcome is not Gate.PASS:
                console.print(f"  {reason.outcome.value}: {escape(reason.detail)}")
    else:
        for reason in outcome.reasons:
            console.print(f"  {reason.outcome.value}: {escape(reason.detail)}")
    for line in quality_lines(outcome):
        console.print(escape(line))
    cost = outcome.cost.arms()
    if cost:
        console.print("cost per condition: " + "; ".join(escape(f"{c} {cost_text(v)}") for c, v in cost.items()))
    console.print(f"files: {escape(str(outcome.out_dir))}")


def _count(entry: TokenCount) -> str:
    return str(entry.value) if entry.value is not None else f"{entry.status} (null)"


def cost_text(v: ArmCost) -> str:
    """One condition's cost guardrails as one line: nulls say why instead of printing 0."""
    wall = v.wall_clock_latency.value_s
    money = v.estimated_monetary_cost
    price = (f"{money.value:.6g} {money.currency}" if money.value is not None else f"cost null: {money.note}")
    return (f"{v.requests} calls (serial depth {v.serial_depth}, {v.parallelizable_calls} parallelisable), "
            f"input {_count(v.input_tokens)}, output {_count(v.output_tokens)}, "
            f"total {_count(v.total_tokens)} tokens, wall clock "
            f"{'unknown' if wall is None else f'{wall:.1f} s'}, {price}")


def print_gloss(outcome: PlanGloss, console: Console, *, details: bool) -> None:
    console.rule("gloss")
    if details:
        for arm in outcome.arms.values():
            print_eval(arm, console, title=f"GLOSS — arm {arm.arm} ({arm.role})",
                       failure_report=False)
            console.print()
    table = Table(title="GLOSS per arm")
    for column in ("arm", "role", "GLOSS", "sigma_total", "failed categories", "decides"):
        table.add_column(column)
    for arm in outcome.arms.values():
        sigma = arm.sigma_total
        table.add_row(escape(arm.arm), arm.role, arm.gate.value, "n/a" if sigma is None else f"{sigma:.2f}",
                      escape(", ".join(arm.failed_categories) or "none"),
                      "yes" if arm.decides else "no: control")
    console.print(table)
    first = next(iter(outcome.arms.values()), None)
    if first is not None:  # one [sampling] for every arm: as served, or a departure from the spec's procedure
        console.print(escape(sampling_line(first.sampling, short=True)))
