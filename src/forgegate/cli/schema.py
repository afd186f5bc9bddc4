"""`forgegate schema KIND`: the JSON Schema of a result kind (wiring; the models live in forgegate.results)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from forgegate.cli.common import console
from forgegate.core.kinds import RESULT_KINDS
from forgegate.errors import UsageError, not_one_of

SCHEMA_NAMES = RESULT_KINDS
"""Every ``kind`` (``live`` shares ``eval``'s schema); from ``core`` so ``--help`` imports no model."""


def schema(
    kind: str | None = typer.Argument(None, metavar="KIND", help="Result kind: " + ", ".join(SCHEMA_NAMES) + "."),
    write_dir: Path | None = typer.Option(None, "--write-dir",
                                          help="Write every kind's schema to DIR/<kind>.json instead of printing one "
                                               "(how docs/schema/ is made)."),
) -> None:
    """Print the JSON Schema of a result kind: what `--json` writes and what readers accept."""
    from forgegate.results import MODELS, json_schema, schema_name

    if write_dir is not None:
        write_dir.mkdir(parents=True, exist_ok=True)
        for name in MODELS:
            (write_dir / f"{name}.json").write_text(schema_text(json_schema(name)), encoding="utf-8")
        console.print(f"wrote {len(MODELS)} schemas to {write_dir}")
        return
    if kind is None:
        raise UsageError("give a KIND (" + ", ".join(SCHEMA_NAMES) + ") or --write-dir DIR")
    if kind not in SCHEMA_NAMES:
        raise UsageError(f"KIND {not_one_of(kind, SCHEMA_NAMES)}")
    typer.echo(schema_text(json_schema(schema_name(kind))), nl=False)


def schema_text(schema_doc: dict[str, object]) -> str:
    """The committed form: indented, keys in the model's order, newline at the end."""
    return json.dumps(schema_doc, indent=2, ensure_ascii=False) + "\n"


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
