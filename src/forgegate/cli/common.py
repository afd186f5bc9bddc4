"""Shared CLI plumbing: the console, and ending a command with a gate word's exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from forgegate.console import console, err_console

if TYPE_CHECKING:
    from forgegate.core.verdict import Gate

__all__ = ["console", "distinct_outputs", "err_console", "exit_with", "quiet_default"]


def quiet_default() -> bool:
    """Progress bars only on a terminal: CI logs stay clean."""
    return not sys.stderr.isatty()


def exit_with(gate: Gate) -> None:
    """End the command with the contract's exit code for ``gate``."""
    raise typer.Exit(code=gate.exit_code)


def distinct_outputs(**flags: Path | None) -> None:
    """Refuse two output flags naming one file (``--json r.json --html r.json``): the second write would replace
    the first, so a command that exits 0 would leave a result file that is not its result. Checked before
    anything runs; flag names are given as keywords (``json=``, ``html=``, ``markdown=``)."""
    import os

    from forgegate.errors import UsageError

    seen: dict[str, str] = {}
    for name, path in flags.items():
        if path is None:
            continue
        key = os.path.realpath(path)
        flag = f"--{name.replace('_', '-')}"
        if key in seen:
            raise UsageError(f"{seen[key]} and {flag} both name {path}: each output needs its own file (the second "
                             "write would replace the first); give them different paths")
        seen[key] = flag
