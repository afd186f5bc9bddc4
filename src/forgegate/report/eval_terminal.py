"""The eval result on a terminal, in GLOSS v2's own layout, then the failure report."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from forgegate.core.gloss_v2 import GLOSS_V2_TITLE, titled
from forgegate.core.verdict import Gate
from forgegate.gate.controls import is_control_rule

_WIDTH = 13


def _score(value: float | None) -> str:
    return "n/a " if value is None else f"{value:.2f}"


def print_eval(result: dict[str, Any], console: Console, *, title: str = GLOSS_V2_TITLE,
               failure_report: bool = True) -> None:
    """Print ``result`` (the JSON contract) as GLOSS v2 lays it out; model text is escaped. A result whose
    gate is not GLOSS v2 is never titled "GLOSS EVAL v2"."""
    title = titled(title, result["gate_config"].get("gloss_v2"), str(result["gate_config"]["name"]))
    console.print(f"{title} — Model: {escape(str(result['model']))}  (backend {result['backend']}, "
                  f"run {result['run_id']})")
    console.print(f"battery {escape(result['battery']['path'])} sha256 {result['battery']['sha256'][:16]}… "
                  f"({result['battery']['items']} items); gate config {result['gate_config']['name']}")
    if result.get("model_digest"):
        console.print(f"model digest {result['model_digest']}")
    console.print("Category scores:")
    for name, cat in result["categories"].items():
        gate = cat["gate"]
        colour = Gate(gate).colour
        missing = f"  ({cat['missing']} unanswered)" if cat.get("missing") else ""
        console.print(f"  {name + ':':<{_WIDTH}} {_score(cat['score'])}  [{colour}][{gate}][/]"
                      f"  {cat['passed']}/{cat['n']}{missing}")
    sigma = result["sigma_total"]
    console.print(f"\nσ_total: {'n/a (answers missing)' if sigma is None else f'{sigma:.2f}'}")
    gate = result["gate"]
    colour = Gate(gate).colour
    console.print(f"GATE: [{colour}]{gate}[/]")
    console.print(f"Failed categories: [{', '.join(result['failed_categories'])}]")
    console.print(f"Failure modes detected: [{', '.join(result['failure_modes'])}]")
    console.print(f"Token counts from: {', '.join(result.get('token_sources', [])) or 'n/a'}")
    if result.get("stop_distribution"):
        print_stop_distribution(result["stop_distribution"], console)
    if result.get("format_followup"):
        console.print(f"Follow-up (EVAL_FALSE_NEGATIVE): {escape(result['format_followup']['finding'])}",
                      soft_wrap=True)
    console.print("Reasons:")
    for reason in result["reasons"]:
        if reason["outcome"] != Gate.PASS.value or gate == Gate.PASS.value or is_control_rule(reason["rule"]):
            console.print(f"  [{reason['outcome']}] {reason['rule']}: {escape(reason['detail'])}")
    if failure_report and (result["failed_categories"] or gate != "PASS"):
        print_failure_report(result, console)


def print_stop_distribution(raw: dict[str, Any], console: Console) -> None:
    """LX-STOP's termination distribution: the STOP_FAILURE line, finish reasons, answers per token range."""
    from forgegate.report.stop_view import finishes_text, stop_line, stop_table
    from forgegate.results.eval import StopDistributionResult

    dist = StopDistributionResult.model_validate(raw)
    _, rows = stop_table(dist)
    console.print(f"{dist.category} termination: {stop_line(dist)}")
    console.print(f"  finish reasons: {finishes_text(dist)}")
    console.print("  tokens: " + "  ".join(f"{label}: {count}" for label, count in rows))


def print_failure_report(result: dict[str, Any], console: Console, *, per_category: int = 5) -> None:
    """Each failed category: score, failing prompts, observed outputs, failure-mode labels."""
    items = result["items"]
    shown_any = False
    for name, cat in result["categories"].items():
        failing = [i for i in items if i["category"] == name and not i["passed"]]
        if cat["gate"] == "PASS" and not any(i["failure_modes"] or i["score"] is None for i in failing):
            continue
        if not failing:
            continue
        if not shown_any:
            console.print("\nFAILURE REPORT")
            shown_any = True
        console.print(f"\n{name}: score {_score(cat['score'])} [{cat['gate']}] — {len(failing)} failing")
        for item in failing[:per_category]:
            response = item["response"] if item["response"] is not None else f"<{item['finish']}: {item['error']}>"
            snippet = response if len(response) <= 240 else response[:240] + "…"
            labels = ", ".join(item["failure_modes"]) or "-"
            console.print(f"  • {escape(item['id'])}  prompt: {escape(repr(item['prompt']))}")
            console.print(f"    observed ({item['tokens']} tokens, finish {item['finish']}): "
                          f"{escape(repr(snippet))}")
            console.print(f"    failure mode: {labels}; {escape(str(item['detail']))}")
        if len(failing) > per_category:
            console.print(f"  … and {len(failing) - per_category} more (see --json)")
