"""`forgegate view`: a local web app over the run store and lineage files (wiring only; the app is forgegate.view)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("view", help="Serve a local web page over the run store: runs with live progress, a run's items, "
                 "compare, lineage, and the review queue. Binds 127.0.0.1; any other --host needs --token.")
    def view(
        store: Path | None = typer.Option(None, help="Run store directory (default $FORGEGATE_HOME/runs)."),
        host: str = typer.Option("127.0.0.1", help="Address to listen on (not loopback: --token is required)."),
        port: int = typer.Option(8765, min=0, max=65535, help="Port (0: any free port)."),
        token: str | None = typer.Option(None, help="Access token every request must carry; 'auto' makes one."),
        lineage: list[Path] = typer.Option([], help="A lineage JSONL file to show (repeatable)."),
        sheet: list[Path] = typer.Option([], help="A T_GPT relevance or validation sheet to annotate (repeatable)."),
        author: str | None = typer.Option(None, help="The plan's author, refused as a sheet's primary annotator."),
        result: list[Path] = typer.Option([], help="A result JSON (plan run, T_GPT metrics, eval) to show as its "
                                                   "report (repeatable)."),
    ) -> None:
        from forgegate.store import default_store_dir

        try:
            from forgegate.view.serve import serve, view_config
        except ImportError as exc:  # the optional extra is not installed
            raise UsageError(f"forgegate view needs its extra: pip install 'forgegate[view]' ({exc})") from None
        config = view_config(store or default_store_dir(), lineage, host, token, sheets=sheet, author=author,
                             results=result)
        # plain echo: a long address (a token in it) must never be wrapped onto two lines
        serve(config, host, port, lambda url: typer.echo(
            f"forgegate view: serving {config.store_dir} at {url} (Ctrl-C to stop)"))
