"""The durable, append-only SQLite run store (one file per run) and where runs live."""

from forgegate.store.locate import default_store_dir, find_run, list_runs, run_path, writable_store_dir
from forgegate.store.lock import run_lock
from forgegate.store.run_meta import GenerationMarker, RunMeta, StoredGateConfig
from forgegate.store.runstore import ReviewDecision, RunStore

__all__ = ["GenerationMarker", "ReviewDecision", "RunMeta", "RunStore", "StoredGateConfig", "default_store_dir",
           "find_run", "list_runs", "run_lock", "run_path", "writable_store_dir"]
