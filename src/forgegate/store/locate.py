"""Where run files live: ``$FORGEGATE_HOME/runs/<run_id>.sqlite`` (default ``./.forgegate``)."""

from __future__ import annotations

import os
from pathlib import Path

from forgegate.errors import UsageError
from forgegate.store.faults import check_folder, ensure_folder

HOME_VARIABLE = "FORGEGATE_HOME"


def default_store_dir() -> Path:
    return Path(os.environ.get(HOME_VARIABLE, ".forgegate")) / "runs"


def store_dir_source(store_dir: Path | None) -> str:
    """Which setting chose the store folder, for messages that tell the user what to change."""
    if store_dir is not None:
        return "--store"
    return HOME_VARIABLE if HOME_VARIABLE in os.environ else "the default store (./.forgegate/runs)"


def writable_store_dir(store_dir: Path | None) -> Path:
    """The store folder, created if needed; a file in its way is a clear error, not a crash."""
    directory = store_dir or default_store_dir()
    ensure_folder(directory, store_dir_source(store_dir))
    return directory


def run_path(run_id: str, store_dir: Path | None = None) -> Path:
    return (store_dir or default_store_dir()) / f"{run_id}.sqlite"


def list_runs(store_dir: Path | None = None) -> list[Path]:
    directory = store_dir or default_store_dir()
    check_folder(directory, store_dir_source(store_dir))
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
