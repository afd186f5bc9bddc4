"""`forgegate battery build` and `forgegate battery check`: wiring only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from forgegate.cli.common import console, err_console

if TYPE_CHECKING:
    from forgegate.battery import Battery


def _print_summary(battery: Battery, label: str) -> None:
    from rich.table import Table

    console.print(f"{label}: {escape(str(battery.path))}", soft_wrap=True)
    table = Table()
    table.add_column("category")
    table.add_column("items", justify="right")
    for category, count in battery.counts().items():
        table.add_row(escape(category), str(count))
    table.add_row("[bold]total[/]", f"[bold]{len(battery)}[/]")
    console.print(table)
    console.print(f"sha256: {battery.sha256}")


def _warn_short_answers(battery: Battery) -> None:
    """Warn (exit status unchanged) about answers of one or two letters or digits: word matching keeps
    "no" out of "not", but any answer that merely mentions "no" ("no doubt: yes") still passes."""
    from forgegate.checks.match import short_answers

    for item in battery.items:
        short = short_answers(item)
        if short:
            listed = ", ".join(repr(s) for s in short)
            err_console.print(f"warning: {escape(str(battery.path))}: item {escape(item.item_id)}: {escape(listed)} "
                              "is one or two letters or digits, so an answer that merely mentions it passes; "
                              "prefer an exact item, a longer answer, or forbid the opposite answer",
                              soft_wrap=True, highlight=False)


def _warn_walls_judged_by_markers_alone(battery: Battery) -> None:
    """Warn (exit status unchanged) about walls that list no ``answer_content``: "FAIL if answered" cannot see an
    answer that rides along with the marker, so only the marker test judges them (docs: The GLOSS v2 gate)."""
    from forgegate.checks.score import marker_test_only

    for item in battery.items:
        if item.is_wall and marker_test_only(item):
            err_console.print(f"warning: {escape(str(battery.path))}: wall {escape(item.item_id)} lists no "
                              "answer_content, so only its markers judge it and a marker followed by the answer "
                              "passes; list what an answer to its question would carry",
                              soft_wrap=True, highlight=False)


def register(app: typer.Typer) -> None:
    battery_app = typer.Typer(help="Build and validate battery files (JSONL, one item a line).",
                              no_args_is_help=True)
    app.add_typer(battery_app, name="battery")

    @battery_app.command("build", help="Build the GLOSS v2 battery (or, with --live, the 10-task live test; "
                         "with --probe, the training probe) from a LATTICE symbol table. Exit 2 on a bad table.")
    def build(
        out: Annotated[Path, typer.Option("--out", help="Where to write the battery JSONL.")],
        symbols: Annotated[
            Path | None,
            typer.Option("--symbols", help="LATTICE symbol table TOML (default: the bundled table)."),
        ] = None,
        live: Annotated[bool, typer.Option("--live", help="Build the 10-task live functional test.")] = False,
        probe: Annotated[bool, typer.Option("--probe", help="Build the training probe (33 GLOSS v2 items "
                                            "probed at each checkpoint).")] = False,
    ) -> None:
        from forgegate.battery import build_battery_file, bundled_lattice_path, load_battery
        from forgegate.errors import UsageError

        if live and probe:
            raise UsageError("--live and --probe build different files: pass one of them")

        source = symbols if symbols is not None else bundled_lattice_path()
        console.print(f"symbols: {escape(str(source))}" + ("" if symbols is not None else " (bundled)"))
        build_battery_file(source, out, "live" if live else "probe" if probe else "battery")
        _print_summary(load_battery(out), "built")

    @battery_app.command("check", help="Validate a battery: counts per category and its sha256. "
                         "Exit 0 when valid, 2 with file:line:field when not.")
    def check(
        path: Annotated[Path, typer.Argument(help="The battery JSONL file.")],
        category: Annotated[
            list[str] | None,
            typer.Option("--category", help="A category the battery may use; repeat. Items in any other "
                         "category are errors. Without it, every category is accepted."),
        ] = None,
        json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary here.")] = None,
    ) -> None:
        from forgegate.battery import load_battery
        from forgegate.jsonio import write_json_atomic
        from forgegate.results.battery_check import BatteryCheckResult

        battery = load_battery(path, categories=category or None)
        _print_summary(battery, "valid battery")
        _warn_short_answers(battery)
        _warn_walls_judged_by_markers_alone(battery)
        if json_path is not None:
            write_json_atomic(json_path, BatteryCheckResult.of(battery).to_json())
