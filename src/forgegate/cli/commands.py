"""The one list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

import importlib

import typer

# One entry per command module under forgegate.cli; add yours here.
COMMAND_MODULES: tuple[str, ...] = (
    "init",
    "eval",
    "graduate",
    "runs",
    "battery",
    "lineage",
    "semantic",
    "instruments",
    "audit",
    "plan",
    "run",
    "report",
    "view",
    "schema",
    "training",
)


def register_all(app: typer.Typer) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"forgegate.cli.{name}").register(app)
