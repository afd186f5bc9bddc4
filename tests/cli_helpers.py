"""Helpers for the CLI entry tests: every registered command, and running the entry point in-process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import typer
from typer.models import CommandInfo

from forgegate.cli.main import app, run


def _walk(typer_app: typer.Typer, prefix: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], CommandInfo]]:
    for info in typer_app.registered_commands:
        assert info.name is not None, f"{prefix}: every command is registered under an explicit name"
        yield (*prefix, info.name), info
    for group in typer_app.registered_groups:
        assert group.name is not None and group.typer_instance is not None
        yield from _walk(group.typer_instance, (*prefix, group.name))


def registered_commands() -> list[tuple[tuple[str, ...], CommandInfo]]:
    """Every leaf command of ``forgegate`` as (its words, typer's record of it)."""
    return list(_walk(app, ()))


COMMAND_PATHS: list[tuple[str, ...]] = [path for path, _ in registered_commands()]


def command_info(path: tuple[str, ...]) -> CommandInfo:
    return dict(registered_commands())[path]


def run_entry(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The console entry's handler on ``forgegate ARGS``, in-process: (exit code, stdout, stderr)."""
    code = run(["forgegate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
