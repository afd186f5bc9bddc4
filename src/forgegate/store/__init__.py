"""The durable, append-only SQLite run store (one file per run) and where runs live."""

from forgegate.store.locate import default_store_dir, find_run, list_runs, run_path
from forgegate.store.runstore import RunStore

__all__ = ["RunStore", "default_store_dir", "find_run", "list_runs", "run_path"]
