"""``forgegate run PLAN``: a locked plan's arms generated (resumable) and scored by its instruments (wiring only)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console, distinct_outputs, exit_with, quiet_default
from forgegate.cli.options import HTML_OPTION, MARKDOWN_OPTION, NO_WAIT_HELP


def run(
    plan: Path = typer.Argument(..., help="A locked plan TOML (forgegate plan lock PLAN)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write every number of the verdict here."),
    store: Path | None = typer.Option(None, "--store", help="Run store folder (default ./.forgegate/runs)."),
    concurrency: int = typer.Option(1, "--concurrency", help="Requests in flight at once.", min=1),
    no_wait: bool = typer.Option(False, "--no-wait", help=NO_WAIT_HELP),
    brief: bool = typer.Option(False, "--brief", help="Only the verdict tables, not each instrument's detail."),
    html: Path | None = HTML_OPTION.default,
    markdown: Path | None = MARKDOWN_OPTION.default,
    quiet: bool = typer.Option(False, "--quiet", help="No progress bars (also off when stderr is not a terminal)."),
) -> None:
    """Check the lock, generate arm x item x seed (resuming), score every instrument, print the verdict."""
    from forgegate.jsonio import write_json_atomic
    from forgegate.pipeline.plan.generate import generate_plan
    from forgegate.pipeline.plan.score import score_plan
    from forgegate.report import write_reports
    from forgegate.report.plan_terminal import print_plan_result

    distinct_outputs(json=json_out, html=html, markdown=markdown)
    generations = generate_plan(plan, store_dir=store, concurrency=concurrency, quiet=quiet or quiet_default(),
                                wait=not no_wait)
    result = score_plan(generations).model()  # the typed result: printed, rendered, and dumped as the JSON
    print_plan_result(result, console, details=not brief)
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    if html is not None or markdown is not None:
        write_reports(result, html, markdown)
    exit_with(result.gate)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
