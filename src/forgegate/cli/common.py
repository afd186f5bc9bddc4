"""Shared CLI plumbing: the console, and ending a command with a gate word's exit code."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from forgegate.console import console, err_console

if TYPE_CHECKING:
    from forgegate.core.verdict import Gate

__all__ = ["console", "err_console", "exit_with", "quiet_default"]


def quiet_default() -> bool:
    """Progress bars only on a terminal: CI logs stay clean."""
    return not sys.stderr.isatty()


def exit_with(gate: Gate) -> None:
    """End the command with the contract's exit code for ``gate``."""
    raise typer.Exit(code=gate.exit_code)
