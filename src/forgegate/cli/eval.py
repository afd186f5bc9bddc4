"""`forgegate eval`, `live` and `rescore`: wiring only (the work is in forgegate.pipeline)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from forgegate.cli.common import console, distinct_outputs, err_console, exit_with
from forgegate.cli.options import (
    HTML_OPTION,
    JSON_OPTION,
    MARKDOWN_OPTION,
    session_options,
    session_parameter,
    session_parameters,
    with_options,
)
from forgegate.core.gloss_v2 import GLOSS_V2_TITLE

if TYPE_CHECKING:
    from forgegate.core.verdict import Gate
    from forgegate.pipeline.session.fields import SessionKind
    from forgegate.results import EvalResult
    from forgegate.run.engine import ExecutionSummary


def report_summary(summary: ExecutionSummary) -> None:
    err_console.print(f"generated {summary.generated}, resumed {summary.skipped_finished} from the store, "
                      f"failed {summary.failed} ({summary.tokens} tokens, {summary.wall_s:.1f} s)")
    if summary.loops_cut:
        err_console.print(f"cut off {summary.loops_cut} looping answers as they started "
                          f"(~{summary.tokens_saved} tokens saved)")


def finish(result: EvalResult, json_path: Path | None, title: str, *, html: Path | None = None,
           markdown: Path | None = None, verbose: bool = False, quiet: bool = False) -> Gate:
    """Write the JSON (and reports), print the result, and return the gate the exit code follows.

    The terminal gets one screen (the compact report, ending on the summary line) unless ``verbose``: the full
    report, every failing prompt, lives in ``--verbose``, the HTML / Markdown files and ``forgegate show``.
    ``quiet`` prints the summary line alone (a CI log that only needs the word, the counts and where to look)."""
    from forgegate.pipeline.session.eval_session import write_result
    from forgegate.report.eval_compact import print_eval_compact, print_summary_line, signature_word
    from forgegate.report.eval_terminal import print_eval

    write_result(result, json_path)
    if html is not None or markdown is not None:
        from forgegate.report import write_reports  # the Markdown renderer reads every result kind: only if asked

        write_reports(result, html, markdown, created=result.created)
    written = tuple(str(path) for path in (html, markdown) if path is not None)
    if quiet:
        print_summary_line(result, console, reports=written)
        return result.gate
    if not verbose:
        print_eval_compact(result, console, title=title, reports=written)
        return result.gate
    print_eval(result, console, title=title)
    present = result.failure_mode_signatures
    if present:
        console.print("\nFailure-mode signatures:")
        for name, found in present.items():
            console.print(f"  {name:<20} {signature_word(found)}")
    return result.gate


_CHECK = session_parameter("check_failure_modes").default
_VERBOSE = typer.Option(False, "--verbose", "-v",
                        help="Print the full report: every reason and every failing prompt with its prompt, "
                        "observed output and check (default: one screen, ending on a summary line).")
QUIET_HELP = ("Print only the closing summary line (the word, failed categories, loops, walls, the exit code, "
              "where to look) and errors: no progress bar, no report; the JSON and report files are written as "
              "ever. The engine's one line of counts (generated, resumed, failed) stays on stderr.")
_CORPUS = session_parameter("training_corpus").default


def _session_command(kind: SessionKind, title: str) -> Any:
    verbose = inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY, default=_VERBOSE, annotation=bool)

    @with_options([*session_parameters(help_for={"quiet": QUIET_HELP}), JSON_OPTION, HTML_OPTION, MARKDOWN_OPTION,
                   verbose])
    def command(**kw: Any) -> None:
        from forgegate.errors import UsageError
        from forgegate.pipeline.session.eval_session import run_session

        if kw["quiet"] and kw["verbose"]:
            raise UsageError("--quiet prints only the summary line and --verbose the full report: give one of them")
        distinct_outputs(json=kw["json_out"], html=kw["html"], markdown=kw["markdown"])
        session = run_session(session_options(kind, kw, kw["battery"]))
        report_summary(session.summary)
        exit_with(finish(session.result, kw["json_out"], title, html=kw["html"], markdown=kw["markdown"],
                         verbose=kw["verbose"], quiet=kw["quiet"]))

    return command


def register(app: typer.Typer) -> None:
    app.command("eval", help="Run a battery against a model and gate it (GLOSS v2 by default).")(
        _session_command("eval", GLOSS_V2_TITLE))
    app.command("live", help="Run the 10-task live functional test (0 loops, 0 walls, >= 8/10 correct).")(
        _session_command("live", "GLOSS LIVE TEST"))

    @app.command("rescore", help="Re-score a stored run without generating anything.")
    def rescore(
        run: str = typer.Argument(..., help="Run id (or unique prefix) or path to its .sqlite file."),
        battery: Path | None = typer.Option(None, help="Battery JSONL (default: the one the run used)."),
        gate_config: Path | None = typer.Option(None, help="Re-gate under this config (default: the run's own)."),
        json_out: Path | None = typer.Option(None, "--json", help="Write the full result here."),
        store: Path | None = typer.Option(None, help="Run store directory."),
        check_failure_modes: bool = _CHECK,
        html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
        markdown: Path | None = typer.Option(None, "--markdown", help="Write a Markdown summary here."),
        training_corpus: Path | None = _CORPUS,
        verbose: bool = _VERBOSE,
    ) -> None:
        from forgegate.pipeline.format_followup import with_training_corpus
        from forgegate.pipeline.session.rescore import rescore_stored_run

        distinct_outputs(json=json_out, html=html, markdown=markdown)

        result, regated = rescore_stored_run(run, store_dir=store, battery_path=battery,
                                             gate_config_path=gate_config, check_failure_modes=check_failure_modes)
        result = with_training_corpus(result, training_corpus)
        if regated:
            err_console.print(f"note: {regated}")
        if unfinished := [item.id for item in result.items if item.unfinished]:
            err_console.print(f"note: {len(unfinished)} stored answer(s) have no finish reason from the server "
                              f"(marked 'unfinished' in the JSON; e.g. {', '.join(unfinished[:3])}): they may be "
                              "streams the server cut, scored as if whole. Running the eval command of this run "
                              "again resumes it and generates them again.", markup=False, soft_wrap=True)
        exit_with(finish(result, json_out, "GLOSS RESCORE", html=html, markdown=markdown, verbose=verbose))
