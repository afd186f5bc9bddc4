"""`forgegate init`: write a starter battery, its gate and a README line; wiring only (forgegate.battery.starter)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console


def register(app: typer.Typer) -> None:
    @app.command("init", help="Write a starter battery (your questions go there), its gate and a README into a "
                 "folder, ready to run with `forgegate eval`.")
    def init(
        directory: Path = typer.Argument(Path("forgegate-gate"), help="Folder to write into (made if missing)."),
        force: bool = typer.Option(False, "--force", help="Replace starter files already in the folder."),
    ) -> None:
        from forgegate.battery.starter import write_starter

        written = write_starter(directory, force=force)
        for path in written:
            console.print(f"wrote {path}", soft_wrap=True)
        battery, gate = written[0], written[1]
        console.print("Next: replace the example questions in the battery with yours, then run")
        console.print(f"  forgegate eval --battery {battery} --gate-config {gate}", soft_wrap=True)
        console.print("  (your own server: add --backend openai --model ID --base-url http://127.0.0.1:8000/v1)",
                      soft_wrap=True)
