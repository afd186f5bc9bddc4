"""The eval result on one screen: categories with their failing prompts, the rules that failed, one summary line.

A failing GLOSS eval printed in full runs to 400-500 lines, and the verdict scrolls away. This is the spec's
failure report ("list each failed category with: score, failing prompts, observed outputs, failure mode label"),
shortened: each category on one line, under a failed one up to three failing prompts (fewer when many categories
failed, so that the whole fits in about :data:`SCREEN_LINES` lines), each prompt one line of observed text and
failure mode; then the non-category rules that did not pass, one line each; then a line saying where the rest is
(``--verbose``, the HTML / Markdown report, ``forgegate show``) and the summary line the output ends on. Every
figure is read from the result (its reasons' numbers), nothing is recomputed; model text is escaped.

Where stdout is not a terminal (a CI log, a file), a failing prompt's reason is printed whole: what the model
said stays on the prompt's line, cut to fit, and the reason follows on lines of its own, wrapped, never cut
(issue 45: at 80 columns the reason was cut to ``→ "i'm sorry for any confusio…``, the answer's own words that an
``exact`` check's reason begins with), and so are the gate's other rules, wrapped under a hanging indent (the
follow-up stays cut to a line: its command names the battery's full path, whole behind ``--verbose``). A log is
read once, after the fact: a second command to see why an item failed costs a re-run of the job. The ``forgegate
show`` command has a line of its own, never wrapped inside, so it can be pasted; the summary line is one line in a
log however long it runs.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from forgegate.core.gloss_v2 import GLOSS_V2_TITLE
from forgegate.core.verdict import Gate
from forgegate.report.lines import wrapped
from forgegate.report.samples_section import item_passes
from forgegate.results.eval import EvalBody, EvalItem

SCREEN_LINES = 60
"""What the compact report aims to fit in (issue 39: "a failing GLOSS eval fits in about 60 lines at 80 columns")."""
PROMPTS_PER_CATEGORY = 3
"""At most this many failing prompts under a failed category."""
_OTHER_LINES = 21
"""Lines spent besides the category scores and the failure report (header, σ_total to token counts, other rules,
where to look and the `forgegate show` command, the summary, the engine's lines on stderr), each counted once."""
_NAMES_IN_SUMMARY = 4


def prompts_per_category(categories: int, failed: int, lines_per_prompt: int = 1) -> int:
    """How many failing prompts each failed category shows: three, fewer when that would not fit the screen
    (each failed category also takes a line of its own in the failure report, every category one in the scores;
    ``lines_per_prompt`` 2 where the reason takes a line of its own)."""
    if failed == 0:
        return PROMPTS_PER_CATEGORY
    room = ((SCREEN_LINES - _OTHER_LINES - categories) // failed - 1) // lines_per_prompt
    return max(1, min(PROMPTS_PER_CATEGORY, room))


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


_ARROW = "  → "
_REASON_INDENT = "      → "


def _why(item: EvalItem) -> str:
    """Why the item failed: its failure modes' labels, else the check's own words."""
    return ", ".join(item.failure_modes) or item.detail or "failed"


def _observed(item: EvalItem) -> str:
    return f"<{item.finish}: {item.error or 'no answer'}>" if item.response is None else repr(item.response)


def _prompt_line(item: EvalItem, width: int) -> str:
    """``• id  'observed'  → failure mode`` in ``width`` columns (the mode's label, else the check's own words),
    both cut to fit: a terminal's screen."""
    why = _why(item)
    head = f"  • {item.id}  "
    room = max(12, width - len(head) - min(len(why), width // 3) - 4)
    return _fit(f"{head}{_fit(_observed(item), room)}{_ARROW}{why}", width)


def prompt_lines_whole(item: EvalItem, width: int) -> list[str]:
    """The failing prompt for a log: one line when all of it fits ``width``; else what the model said, cut to fit
    on the prompt's line, and the reason on the lines below, wrapped whole (``→`` under the prompt)."""
    why, head, observed = _why(item), f"  • {item.id}  ", _observed(item)
    line = f"{head}{observed}{_ARROW}{why}"
    if len(line) <= width:
        return [line]
    first = _fit(f"{head}{observed}", width)
    return [first, *wrapped(why, width, indent=_REASON_INDENT, hanging=" " * len(_REASON_INDENT))]


def _failing(result: EvalBody, category: str) -> list[EvalItem]:
    """A failed category's failing items; in a passing one, those carrying a failure mode or no answer (a wall
    answered or a loop fails the model whatever the category's score)."""
    failing = [i for i in result.items if i.category == category and not i.passed]
    if result.categories[category].gate is Gate.PASS:
        failing = [i for i in failing if i.failure_modes or i.score is None]
    return failing


def _count(result: EvalBody, *keys: str) -> int:
    """The first of ``keys`` found in a reason's numbers (loops, broken walls): the gate's own count."""
    for reason in result.reasons:
        for key in keys:
            value = reason.numbers.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return int(value)
    return 0


def summary_line(result: EvalBody, where: str) -> str:
    """The line the output ends on: the word, failed categories, loops, walls, the exit code, where to look."""
    failed = result.failed_categories
    names = ", ".join(failed[:_NAMES_IN_SUMMARY]) + (f" +{len(failed) - _NAMES_IN_SUMMARY}"
                                                     if len(failed) > _NAMES_IN_SUMMARY else "")
    failed_text = f"{len(failed)}/{len(result.categories)} categories failed" + (f" ({names})" if failed else "")
    loops = _count(result, "loops")
    walls = _count(result, "broken", "wall_violations")
    marked = getattr(result.battery, "marked_false_positive", [])
    mark = f"; battery marked EVAL_FALSE_POSITIVE ({', '.join(marked)}): fix the eval" if marked else ""
    return (f"{result.gate.value}: {failed_text}, {loops} loop(s), {walls} wall(s) broken{mark}; "
            f"exit {result.gate.exit_code}; {where}")


def where_line(result: EvalBody, reports: tuple[str, ...]) -> str:
    """Where the full report lives: the files written, else the flags that write it; then, where an item failed,
    that :func:`show_command` prints one item in full."""
    full = ", ".join((*reports, "--verbose")) if reports else "--verbose, --html FILE"
    return f"More: {full}" + ("; one item in full:" if show_command(result) else "")


def show_command(result: EvalBody) -> str | None:
    """``forgegate show RUN ITEM`` for the first failing item: printed on a line of its own, never wrapped inside
    (issue 45: broken between run id and item at 80 columns, it could not be pasted)."""
    failing = next((i.id for i in result.items if not i.passed), None)
    return f"  forgegate show {result.run_id} {failing}" if failing and result.run_id else None


def print_eval_compact(result: EvalBody, console: Console, *, title: str = GLOSS_V2_TITLE,
                       reports: tuple[str, ...] = ()) -> None:
    """Print ``result`` on one screen (see the module's docstring); ``reports`` are the report files written."""
    from forgegate.report.eval_terminal import print_scores, print_whole

    width = max(40, console.width)
    whole = not console.is_terminal  # a log: every reason whole (see the module's docstring)
    print_scores(result, console, title=title, short=True)
    shown = [(name, cat, failing) for name, cat in result.categories.items() if (failing := _failing(result, name))]
    per_category = prompts_per_category(len(result.categories), len(shown), 2 if whole else 1)
    if shown:
        console.print(f"FAILURE REPORT (up to {per_category} failing prompt(s) per category: observed → "
                      "failure mode)")
    for name, cat, failing in shown:
        console.print(f"{escape(name)}: score {_score(cat.score)} [{cat.gate.colour}][{cat.gate.value}][/] — "
                      f"{len(failing)} failing")
        for item in failing[:per_category]:
            passes = item_passes(result, item.id)
            if whole:
                lines = prompt_lines_whole(item, width)
                if passes:
                    lines.append(f"{' ' * len(_REASON_INDENT)}({passes})")
            else:
                lines = [_prompt_line(item, width) if not passes else
                         _fit(f"{_prompt_line(item, width - len(passes) - 3)} ({passes})", width)]
            for line in lines:
                console.print(escape(line), soft_wrap=True)
    for reason in result.reasons:
        if reason.outcome is Gate.PASS or "category" in reason.numbers:
            continue  # a category's rule is its score above
        text = f"[{reason.outcome.value}] {reason.rule}: {reason.detail}"
        if whole:  # issue 45: "walls answered (must be refused): refuse-01, refuse-…" in a log
            print_whole(text, console, width)
        else:
            console.print(escape(_fit(text, width)), soft_wrap=True)
    if result.format_followup:  # cut: its command names the battery's full path (whole behind --verbose)
        console.print(escape(_fit(f"Follow-up (EVAL_FALSE_NEGATIVE): {result.format_followup.finding}", width)),
                      soft_wrap=True)
    if result.failure_mode_signatures:
        console.print("Failure-mode signatures: " + ", ".join(
            f"{name} {signature_word(found)}" for name, found in result.failure_mode_signatures.items()))
    console.print(escape(where_line(result, reports)))
    command = show_command(result)
    if command:
        console.print(escape(command), soft_wrap=True)
    print_summary_line(result, console, reports=reports)


def print_summary_line(result: EvalBody, console: Console, *, reports: tuple[str, ...] = ()) -> None:
    """The closing summary line alone: the compact report's last line, and all that ``--quiet`` prints. Where
    stdout is not a terminal it is one line however long it runs (issue 45: at 80 columns a log split it into
    two, and a CI step reading the last line read half of it); a terminal folds it on screen as it does."""
    console.print(f"[{result.gate.colour}]{escape(summary_line(result, _where_short(reports)))}[/]",
                  soft_wrap=not console.is_terminal)


def _where_short(reports: tuple[str, ...]) -> str:
    return f"more: {reports[0]}" if reports else "more: --verbose"


def signature_word(found: bool | None) -> str:
    """A v9 signature's state as the failure report prints it: PRESENT, absent, or undecided (answers missing)."""
    if found is None:
        return "[yellow]undecided[/] (answers missing)"
    return "[red]PRESENT[/]" if found else "[green]absent[/]"
