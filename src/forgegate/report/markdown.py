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

from forgegate.core.verdict import Gate
from forgegate.report.arms_cells import comparison_dicts, three_axis_row
from forgegate.report.fmt import num, percent, with_ci
from forgegate.report.sections import Kind, report_result
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


def _verdict(payload: dict[str, Any], title: str) -> list[str]:
    gate = str(payload["gate"])
    label = str(payload.get("label") or gate)
    out = [f"### {_ICON.get(gate, '')} {md(title)}: **{md(label)}**", ""]
    for reason in payload.get("reasons") or ():
        out.append(f"- **{md(reason.get('outcome'))}** {md(reason.get('rule'))}: {md(reason.get('detail'), 300)}")
    return out


def _ships(ships: dict[str, Any] | None) -> list[str]:
    """A plan's ship choice between its tied candidates, every step of the tiebreak."""
    if not ships:
        return []
    out = ["", f"**Ships: {md(ships.get('arm') or 'none')}** (pre-registered tiebreak over "
               f"{md(', '.join(ships.get('candidates') or ()))})", ""]
    for reason in ships.get("reasons") or ():
        out.append(f"- **{md(reason.get('outcome'))}** {md(reason.get('rule'))}: {md(reason.get('detail'), 300)}")
    return out


def _gloss(payload: dict[str, Any]) -> list[str]:
    battery = payload.get("battery") or {}
    out = [f"Model {md(payload.get('model'))} ({md(payload.get('backend'))}), run {md(payload.get('run_id'))}, "
           f"battery sha256 {md(str(battery.get('sha256', ''))[:16])}…, σ_total "
           f"**{num(payload.get('sigma_total'), 2)}**", ""]
    rows = [[md(name), num(c.get("score"), 2), f"{c.get('passed')}/{c.get('n')}", str(c.get("missing") or 0),
             f"{_ICON.get(str(c.get('gate')), '')} {md(c.get('gate'))}"] for name, c in payload["categories"].items()]
    out += _table(["category", "score", "passed", "unanswered", "gate"], rows)
    out += _stop(payload)
    followup = payload.get("format_followup")
    if followup:
        out += ["", f"**Follow-up (EVAL_FALSE_NEGATIVE)**: {md(followup.get('finding'))}"]
    failing = [i for i in payload.get("items", []) if not i.get("passed")]
    failing.sort(key=lambda i: (not i.get("failure_modes"), str(i.get("category")), str(i.get("id"))))
    if failing:
        out += ["", f"**Top failures** ({min(len(failing), TOP_FAILURES)} of {len(failing)})", ""]
        rows = []
        for item in failing[:TOP_FAILURES]:
            response = item.get("response")
            observed = md(response, SNIPPET) if response is not None else f"[{md(item.get('finish'))}: " \
                f"{md(item.get('error'))}]"
            rows.append([md(item.get("id")), md(", ".join(item.get("failure_modes") or ()) or "wrong answer"),
                         f"{item.get('tokens')} / {md(item.get('finish'))}", md(item.get("prompt"), 80), observed])
        out += _table(["item", "failure mode", "tokens / finish", "prompt", "observed output"], rows)
    return out


def _stop(payload: dict[str, Any]) -> list[str]:
    """LX-STOP's termination distribution: the STOP_FAILURE line, finish reasons, answers per token range."""
    raw = payload.get("stop_distribution")
    if not raw:
        return []
    from forgegate.report.stop_view import finishes_text, stop_line, stop_table
    from forgegate.results.eval import StopDistributionResult

    dist = StopDistributionResult.model_validate(raw)
    header, rows = stop_table(dist)
    return ["", f"**LX-STOP termination**: {md(stop_line(dist))}. Finish reasons: {md(finishes_text(dist))}.", "",
            *_table(list(header), [list(r) for r in rows])]


def _arms(payload: dict[str, Any], kind: Kind) -> list[str]:
    rows = [[md(r.title), md(r.primary), md(r.cells[0]), md(r.cells[1]), md(r.cells[2]),
             f"{_ICON.get(r.gate, '')} {md(r.label)}"] for r in map(three_axis_row, comparison_dicts(payload, kind))]
    return _table(["candidate vs control", "primary", "A. voice", "B. not copied", "C. no damage", "verdict"], rows)


def _semantic(payload: dict[str, Any]) -> list[str]:
    across = payload["across_tasks"]
    out = [f"Mode **{md(payload.get('mode'))}**, experiment {md(payload.get('experiment'))}, support tau "
           f"{payload.get('tau_support')}", ""]
    out += _table(["metric", "across tasks [95% CI]", "tasks"],
                  [[m, md(with_ci(across[m])), str(across[m].get("n_tasks"))] for m in ("ES_LOSS", "REC_GAIN",
                                                                                        "IRREV_OBS")])
    roles = payload["roles"]
    order = [roles["reference"], roles["contracted"], roles["recovery"]]
    rows = [[md(task), *(percent(block["conditions"][c]["unmapped_rate"]) if c in block["conditions"] else "-"
                         for c in order)] for task, block in payload["tasks"].items()]
    out += ["", "UNMAPPED rate", ""] + _table(["task", *map(md, order)], rows)
    return out


def render_markdown(payload: dict[str, Any], *, source: str = "result") -> str:
    """The summary as Markdown text (ends with a newline); control, bidi and zero-width characters are
    shown (``␛``, ``\\u202e``), never emitted."""
    kind, _result, payload = report_result(payload, source)
    if kind == "gloss":
        title = "GLOSS live test" if payload.get("kind") == "live" else "GLOSS eval"
        body = _gloss(payload)
    elif kind == "semantic":
        title, body = "T_GPT semantic metrics", _semantic(payload)
    else:
        plan = payload.get("plan") or {}
        title = f"plan {plan.get('name')}" if kind == "plan" else f"{kind} axis"
        body = _arms(payload, kind) + _ships(payload.get("ships"))
    text = "\n".join([*_verdict(payload, title), "", *body, "",
                      "<sub>forgegate report; full details in the HTML report.</sub>", ""])
    return visible(text)  # last, over the whole summary: `cat` of the file replays no escape sequence
