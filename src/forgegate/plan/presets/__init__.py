"""Commented starting plans, one per workflow: ``PRESETS[name]`` is the plan's TOML text."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from forgegate.errors import UsageError
from forgegate.plan.presets import gloss, hemingway, tgpt

PresetName = Literal["hemingway", "gloss", "tgpt"]
PRESETS: dict[str, str] = {"hemingway": hemingway.TEXT, "gloss": gloss.TEXT, "tgpt": tgpt.TEXT}
assert set(PRESETS) == set(get_args(PresetName))


def refuse_existing(out: Path, overwrite: bool) -> None:
    """A plan is never written over an existing file unless the user said so (``--force``)."""
    if out.exists() and not overwrite:
        raise UsageError(f"{out} exists: choose another --out or pass --force")


def write_preset(name: str, out: Path, *, overwrite: bool = False) -> Path:
    """Write preset ``name`` to ``out``; an existing file is kept unless ``overwrite``."""
    if name not in PRESETS:
        raise UsageError(f"unknown preset '{name}': choose one of {', '.join(PRESETS)}")
    refuse_existing(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(PRESETS[name], encoding="utf-8")
    return out
