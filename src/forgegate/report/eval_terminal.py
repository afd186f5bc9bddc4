"""The eval result on a terminal, in GLOSS v2's own layout, then the failure report."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from forgegate.core.gloss_v2 import GLOSS_V2_TITLE, titled
from forgegate.core.rules import is_control_rule
from forgegate.core.verdict import Gate
from forgegate.report.fmt import model_shown, sigma_text
from forgegate.report.lines import packed, wrapped
from forgegate.report.samples_section import (
    category_over_samples,
    margin_line,
    margin_lines,
    samples_line,
    sigma_over_samples,
)
from forgegate.report.sampling_text import sampling_line
from forgegate.results.eval import EvalBody, EvalResult, StopDistributionResult
from forgegate.textsafe import visible

_WIDTH = 13


def _score(value: float | None) -> str:
    return "n/a " if value is None else f"{value:.2f}"


def print_eval(result: EvalBody, console: Console, *, title: str = GLOSS_V2_TITLE,
               failure_report: bool = True) -> None:
    """Print ``result`` (an eval or live result, or a plan arm's GLOSS result) as GLOSS v2 lays it out; model
    text is escaped. A result whose gate is not GLOSS v2 is never titled "GLOSS EVAL v2"."""
    print_scores(result, console, title=title)
    gate = result.gate
    if result.stop_distribution:
        print_stop_distribution(result.stop_distribution, console)
    width = max(40, console.width)
    if result.format_followup:
        console.print(f"Follow-up (EVAL_FALSE_NEGATIVE): {escape(result.format_followup.finding)}",
                      soft_wrap=True)  # one line: the command it names is never wrapped inside
    console.print("Reasons:")
    for reason in result.reasons:
        if reason.outcome is not Gate.PASS or gate is Gate.PASS or is_control_rule(reason.rule):
            print_whole(f"[{reason.outcome.value}] {visible(reason.rule)}: {reason.detail}", console, width,
                        indent="  ")
    if failure_report and (result.failed_categories or gate is not Gate.PASS):
        print_failure_report(result, console)


def print_whole(text: str, console: Console, width: int, *, indent: str = "") -> None:
    """``text`` (a rule's reason, a finding) whole, wrapped at spaces under a hanging indent, never cut."""
    for line in wrapped(text, width, indent=indent, hanging=indent + "    "):
        console.print(escape(line), soft_wrap=True)


def print_scores(result: EvalBody, console: Console, *, title: str = GLOSS_V2_TITLE, short: bool = False) -> None:
    """The spec's "Expected output": title and model, category scores, σ_total, GATE, failed categories and
    failure modes (with the battery, gate config and token sources the numbers rest on). ``short``: the
    provenance on one line (the battery's file name, hashes cut; the JSON has them whole)."""
    battery, config = result.battery, result.gate_config
    gate_name = visible(str(config.name))  # the user's words, as model text is: markup and ESC shown, not run
    title = titled(title, config.gloss_v2, gate_name)
    model = model_shown(str(result.model))  # a path by its file name; the JSON keeps it whole
    served = (f", served as {model_shown(result.served_model)}"
              if result.served_model is not None and result.served_model != result.model else "")
    width = max(40, console.width)
    if short:
        header = [[f"{title} — ", f"Model: {model}  ", f"({result.backend}{served})"],
                  [f"run {result.run_id}; ", f"battery {Path(battery.path).name} ({battery.items} items, "
                   f"{battery.sha256[:8]}…); ", f"gate {gate_name}; ", sampling_line(result.sampling, short=True)]]
    else:
        header = [[f"{title} — ", f"Model: {model}  ", f"(backend {result.backend}{served}, ",
                   f"run {result.run_id})"]]
        served_path = result.served_model if result.served_model != result.model else None
        header += [[f"{name} path {given}"] for name, given in (("model", str(result.model)),
                                                                ("served model", served_path))
                   if given is not None and model_shown(given) != given]
        header.append([f"battery {battery.path} ", f"sha256 {battery.sha256[:16]}… ({battery.items} items); ",
                       f"gate config {gate_name}"])
        if result.model_digest:
            header.append([f"model digest {result.model_digest}"])
        header.append([sampling_line(result.sampling)])
    for pieces in header:  # a label never leaves its value (issue 45: "Model: ⏎ SmolLM2-…", "gate ⏎ gloss-v2")
        for text in packed(pieces, width):
            console.print(escape(text), soft_wrap=True)
    marked = getattr(battery, "marked_false_positive", [])
    if marked:
        console.print(f"[bold red]warning:[/] this battery passed {escape(', '.join(marked))} and the live test failed "
                      "(EVAL_FALSE_POSITIVE): it 'is broken and must be updated before the next forge' (GLOSS v2)")
    console.print("Category scores:" if result.samples is None else
                  f"Category scores (sample 1 of {result.samples.k}, seed {result.samples.seeds[0]}):")
    for name, cat in result.categories.items():
        missing = f"  ({cat.missing} unanswered)" if cat.missing else ""
        over = category_over_samples(result, name)
        label = escape(visible(name)) + ":"
        console.print(f"  {label:<{_WIDTH}} {_score(cat.score)}  [{cat.gate.colour}][{cat.gate.value}][/]"
                      f"  {cat.passed}/{cat.n}{missing}{'  ' + over if over else ''}")
    live = isinstance(result, EvalResult) and result.live
    over = sigma_over_samples(result)
    console.print(f"\nσ_total: {sigma_text(result.sigma_total, live)}{'  ' + over if over else ''}")
    for line in (samples_line(result), margin_line(result) if short else None):
        if line is not None:
            console.print(escape(line))
    if not short:
        for line in margin_lines(result):
            console.print(f"  margin: {escape(line)}")
    gate = result.gate
    console.print(f"GATE: [{gate.colour}]{gate.value}[/]")
    console.print(f"Failed categories: [{', '.join(result.failed_categories)}]")
    console.print(f"Failure modes detected: [{', '.join(result.failure_modes)}]")
    console.print(f"Token counts from: {', '.join(result.token_sources) or 'n/a'}")


def print_stop_distribution(dist: StopDistributionResult, console: Console) -> None:
    """LX-STOP's termination distribution: the STOP_FAILURE line, finish reasons, answers per token range."""
    from forgegate.report.stop_section import finishes_text, stop_line, stop_table

    _, rows = stop_table(dist)
    console.print(f"{dist.category} termination: {stop_line(dist)}")
    console.print(f"  finish reasons: {finishes_text(dist)}")
    console.print("  tokens: " + "  ".join(f"{label}: {count}" for label, count in rows))


def print_failure_report(result: EvalBody, console: Console, *, per_category: int = 5) -> None:
    """Each failed category: score, failing prompts, observed outputs, failure-mode labels."""
    shown_any = False
    for name, cat in result.categories.items():
        failing = [i for i in result.items if i.category == name and not i.passed]
        if cat.gate is Gate.PASS and not any(i.failure_modes or i.score is None for i in failing):
            continue
        if not failing:
            continue
        if not shown_any:
            console.print("\nFAILURE REPORT")
            shown_any = True
        console.print(f"\n{name}: score {_score(cat.score)} [{cat.gate.value}] — {len(failing)} failing")
        for item in failing[:per_category]:
            response = item.response if item.response is not None else f"<{item.finish}: {item.error}>"
            snippet = response if len(response) <= 240 else response[:240] + "…"
            labels = ", ".join(item.failure_modes) or "-"
            console.print(f"  • {escape(item.id)}  prompt: {escape(repr(item.prompt))}")
            console.print(f"    observed ({item.tokens} tokens, finish {item.finish}): "
                          f"{escape(repr(snippet))}")
            console.print(f"    failure mode: {labels}; {escape(str(item.detail))}")
        if len(failing) > per_category:
            console.print(f"  … and {len(failing) - per_category} more (see --json)")
