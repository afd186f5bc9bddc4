"""Where run files live: ``$FORGEGATE_HOME/runs/<run_id>.sqlite`` (default ``./.forgegate``)."""

from __future__ import annotations

import os
from pathlib import Path

from forgegate.errors import UsageError


def default_store_dir() -> Path:
    return Path(os.environ.get("FORGEGATE_HOME", ".forgegate")) / "runs"


def run_path(run_id: str, store_dir: Path | None = None) -> Path:
    return (store_dir or default_store_dir()) / f"{run_id}.sqlite"


def list_runs(store_dir: Path | None = None) -> list[Path]:
    directory = store_dir or default_store_dir()
    return sorted(directory.glob("*.sqlite"), key=lambda p: p.stat().st_mtime) if directory.exists() else []


def find_run(run: str, store_dir: Path | None = None) -> Path:
    """A run given as a path to its file, a full id, or a unique id prefix."""
    as_path = Path(run)
    if as_path.suffix == ".sqlite" and as_path.exists():
        return as_path
    matches = [p for p in list_runs(store_dir) if p.stem == run] or [
        p for p in list_runs(store_dir) if p.stem.startswith(run)
    ]
    if len(matches) == 1:
        return matches[0]
    where = store_dir or default_store_dir()
    if not matches:
        raise UsageError(f"no run '{run}' in {where} (see `forgegate runs`)")
    raise UsageError(f"run '{run}' is ambiguous in {where}: {', '.join(p.stem for p in matches)}")
