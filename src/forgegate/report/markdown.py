"""A Markdown summary that fits a pull-request comment: the verdict, the table, the top failures.

Every string that came from a model or a user is escaped for Markdown tables: pipes and
backticks (and ``* _ [ ] ~ # @``, which Markdown reads as emphasis, links, strike-through,
headings or mentions) get a backslash, ``<``, ``>`` and ``&`` become entities, newlines
become a visible ``⏎``, long outputs are cut, and control characters are shown, never emitted
(``forgegate.textsafe.visible``).
"""

from __future__ import annotations

import re
from typing import Any

from forgegate.core.gloss_v2 import report_title
from forgegate.core.tgpt_caveats import CAVEATS_TITLE, SEMANTIC_CAVEATS
from forgegate.core.verdict import Gate
from forgegate.report.arms_cells import ArmsResult, comparison_entries, three_axis_row
from forgegate.report.fmt import num, percent, sigma_text, with_ci
from forgegate.report.samples_section import (
    category_over_samples,
    item_passes,
    margin_lines,
    samples_line,
    sigma_over_samples,
)
from forgegate.report.sampling_text import sampling_line
from forgegate.report.sections import Renderable, ReportSource, report_result
from forgegate.results import EvalResult, PlanRunResult, SemanticMetricsResult
from forgegate.results.base import ReasonModel
from forgegate.results.eval import StopDistributionResult
from forgegate.results.plan_run import ShipChoice
from forgegate.textsafe import visible

TOP_FAILURES = 10
SNIPPET = 160
_MARKUP = re.compile(r"([\\`*_\[\]|~#@])")
_ICON = {gate.value: gate.icon for gate in Gate}


def md(text: Any, limit: int | None = None) -> str:
    """``text`` safe inside a Markdown table cell (one line, no markup, no HTML)."""
    value = str(text)
    if limit is not None and len(value) > limit:
        value = value[:limit] + "…"
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _MARKUP.sub(r"\\\1", value)
    return value.replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _reasons(reasons: list[ReasonModel]) -> list[str]:
    return [f"- **{md(r.outcome.value)}** {md(r.rule)}: {md(r.detail, 300)}" for r in reasons]


def _verdict(result: Renderable, title: str) -> list[str]:
    gate = result.gate.value
    label = (result.label if isinstance(result, PlanRunResult) else None) or gate
    return [f"### {_ICON.get(gate, '')} {md(title)}: **{md(label)}**", "", *_reasons(result.reasons)]


def _ships(ships: ShipChoice | None) -> list[str]:
    """A plan's ship choice between its tied candidates, every step of the tiebreak."""
    if not ships:
        return []
    return ["", f"**Ships: {md(ships.arm or 'none')}** (pre-registered tiebreak over "
                f"{md(', '.join(ships.candidates))})", "", *_reasons(ships.reasons)]


def _gloss(result: EvalResult) -> list[str]:
    out = [f"Model {md(result.model)} ({md(result.backend)}), run {md(result.run_id)}, "
           f"battery sha256 {md(result.battery.sha256[:16])}…, σ_total "
           f"**{sigma_text(result.sigma_total, result.live)}**"
           + (f" ({md(sigma_over_samples(result))})" if result.samples else ""), "",
           md(sampling_line(result.sampling)), ""]
    over = samples_line(result)
    if over is not None:
        out += [f"**{md(over)}**; the table shows sample 1, the last column the mean over every sample (95% Wilson).",
                ""]
    rows = [[md(name), num(c.score, 2), f"{c.passed}/{c.n}", str(c.missing or 0),
             f"{_ICON.get(c.gate.value, '')} {md(c.gate.value)}",
             *([md(category_over_samples(result, name))] if over is not None else [])]
            for name, c in result.categories.items()]
    out += _table(["category", "score", "passed", "unanswered", "gate", *(["over the samples"] if over else [])], rows)
    margins = margin_lines(result)
    if margins:
        out += ["", "**Margin to the next word**: " + "; ".join(md(line) for line in margins)]
    out += _stop(result.stop_distribution)
    if result.format_followup:
        out += ["", f"**Follow-up (EVAL_FALSE_NEGATIVE)**: {md(result.format_followup.finding)}"]
    failing = [i for i in result.items if not i.passed]
    failing.sort(key=lambda i: (not i.failure_modes, i.category, i.id))
    if failing:
        out += ["", f"**Top failures** ({min(len(failing), TOP_FAILURES)} of {len(failing)})", ""]
        rows = []
        for item in failing[:TOP_FAILURES]:
            observed = md(item.response, SNIPPET) if item.response is not None else \
                f"[{md(item.finish)}: {md(item.error)}]"
            passes = item_passes(result, item.id)
            rows.append([md(item.id) + (f" ({md(passes)})" if passes else ""),
                         md(", ".join(item.failure_modes) or "wrong answer"),
                         f"{item.tokens} / {md(item.finish)}", md(item.prompt, 80), observed])
        out += _table(["item", "failure mode", "tokens / finish", "prompt", "observed output"], rows)
    return out


def _stop(dist: StopDistributionResult | None) -> list[str]:
    """LX-STOP's termination distribution: the STOP_FAILURE line, finish reasons, answers per token range."""
    if not dist:
        return []
    from forgegate.report.stop_section import finishes_text, stop_line, stop_table

    header, rows = stop_table(dist)
    return ["", f"**LX-STOP termination**: {md(stop_line(dist))}. Finish reasons: {md(finishes_text(dist))}.", "",
            *_table(list(header), [list(r) for r in rows])]


def _arms(result: ArmsResult) -> list[str]:
    rows = [[md(r.title), md(r.primary), md(r.cells[0]), md(r.cells[1]), md(r.cells[2]),
             f"{_ICON.get(r.gate, '')} {md(r.label)}"] for r in map(three_axis_row, comparison_entries(result))]
    return _table(["candidate vs control", "primary", "A. voice", "B. not copied", "C. no damage", "verdict"], rows)


def _semantic(result: SemanticMetricsResult) -> list[str]:
    """The across-task and per-task tables, read by attribute."""
    across = result.across_tasks
    out = [f"Mode **{md(result.mode)}**, experiment {md(result.experiment)}, support tau "
           f"{result.tau_support}", ""]
    out += _table(["metric", "across tasks [95% CI]", "tasks"],
                  [[m, md(with_ci(across.pair(m))), str(across.pair(m).n_tasks)] for m in ("ES_LOSS", "REC_GAIN",
                                                                                          "IRREV_OBS")])
    roles = result.roles
    order = [roles.reference, roles.contracted, roles.recovery]
    rows = [[md(task), *(percent(block.conditions[c].unmapped_rate) if c in block.conditions else "-"
                         for c in order)] for task, block in result.tasks.items()]
    out += ["", "UNMAPPED rate", ""] + _table(["task", *map(md, order)], rows)
    return [*out, "", f"{CAVEATS_TITLE}:", "", *(f"- {md(c)}" for c in SEMANTIC_CAVEATS)]


def render_markdown(result: ReportSource, *, source: str = "result") -> str:
    """The summary as Markdown text (ends with a newline); control, bidi and zero-width characters are
    shown (``␛``, ``\\u202e``), never emitted. ``result`` is typed, or a result file's JSON (validated first)."""
    kind, typed = report_result(result, source)
    if isinstance(typed, EvalResult):
        title = report_title(typed.live, typed.gate_config.gloss_v2, str(typed.gate_config.name))
        body = _gloss(typed)
    elif isinstance(typed, SemanticMetricsResult):
        title, body = "T_GPT semantic metrics", _semantic(typed)
    elif isinstance(typed, PlanRunResult):
        title, body = f"plan {typed.plan.name}", _arms(typed) + _ships(typed.ships)
    else:
        title, body = f"{kind} axis", _arms(typed)
    text = "\n".join([*_verdict(typed, title), "", *body, "",
                      "<sub>forgegate report; full details in the HTML report.</sub>", ""])
    return visible(text)  # last, over the whole summary: `cat` of the file replays no escape sequence
