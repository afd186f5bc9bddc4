"""`forgegate report`: a result JSON or a stored run as a self-contained HTML page and a Markdown summary (wiring)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console, distinct_outputs
from forgegate.errors import UsageError


def report(
    source: str = typer.Argument(..., metavar="RUN_OR_JSON",
                                 help="A result .json (eval, live, rescore, run, voice, memorization, damage, "
                                      "semantic metrics) or a GLOSS run id / unique prefix / .sqlite path."),
    html: Path | None = typer.Option(None, "--html", help="Write the self-contained HTML report here."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Write the Markdown summary (PR comment) here."),
    store: Path | None = typer.Option(None, "--store", help="Run store directory (for a run id)."),
    battery: Path | None = typer.Option(None, "--battery", help="Battery JSONL (a run: default the one it used)."),
    gate_config: Path | None = typer.Option(None, "--gate-config",
                                            help="Gate config TOML (a run: default GLOSS v2, as rescore)."),
) -> None:
    """Render a result; exits 0 once the report is written, whatever word it shows (the command that decided
    gates: a CI step that renders a FAIL must not fail the job a second time)."""
    from forgegate.core.verdict import Gate
    from forgegate.pipeline.session.sources import load_report_input
    from forgegate.report import write_reports
    from forgegate.report.sections import renderable

    if html is None and markdown is None:
        raise UsageError("nothing to write: give --html OUT.html and/or --markdown OUT.md")
    distinct_outputs(html=html, markdown=markdown)
    loaded = load_report_input(source, store=store, battery=battery, gate_config=gate_config)
    typed = renderable(loaded.result, loaded.source)
    write_reports(typed, html, markdown, created=loaded.created)
    gate: Gate = typed.gate
    written = ", ".join(str(p) for p in (html, markdown) if p is not None)
    console.print(f"{gate.value}: {loaded.source} -> {written}")


def register(app: typer.Typer) -> None:
    app.command("report")(report)
