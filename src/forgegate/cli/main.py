"""The ``forgegate`` command: typer wiring only; every command lives in its own module."""

from __future__ import annotations

import sys

import typer
from rich.markup import escape

from forgegate.cli import commands
from forgegate.cli.common import err_console
from forgegate.core.verdict import EXIT_BAD_INPUT
from forgegate.core.version import __version__
from forgegate.errors import ForgegateError

app = typer.Typer(
    name="forgegate",
    help="Decide whether a trained language-model checkpoint ships.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    if version:
        typer.echo(__version__)
        raise typer.Exit()


commands.register_all(app)


def main() -> None:
    """Console-script entry: expected errors print without a traceback and exit 2."""
    try:
        app()
    except ForgegateError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", markup=True, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
