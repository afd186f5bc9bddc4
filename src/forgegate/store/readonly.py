"""Opening a run file without writing anything, so that reading works on a read-only folder or mount.

A run file is in WAL mode. Even a reader of a WAL database needs its ``-shm`` index,
which SQLite creates next to the file; in a read-only folder it cannot, and a plain
``mode=ro`` open fails ("attempt to write a readonly database"). Then the file is
opened ``immutable``: SQLite reads it as it lies and creates nothing. That is exact
only if nothing waits in a ``-wal`` file (answers written but not yet folded in, as a
killed writer leaves them); such a store is refused rather than read without them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forgegate.errors import StoreError
from forgegate.store.faults import damaged, is_damage, store_errors, store_fault

RUN_TABLES = frozenset({"meta", "responses"})


def _connect(path: Path, query: str) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True, isolation_level=None)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _pending_wal(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and wal.stat().st_size > 0


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that can only read ``path``; a damaged or foreign file is a StoreError."""
    db = None
    try:
        db = _connect(path, "mode=ro")
        tables = _tables(db)
    except sqlite3.Error as exc:
        if db is not None:
            db.close()
        fault = store_fault(path, exc)
        if fault is None:
            raise
        if is_damage(exc):
            raise fault from exc
        if _pending_wal(path):  # the folder is read-only and answers wait in the -wal file
            raise StoreError(path, "answers wait in its -wal file and its folder is read-only, so they "
                                   "cannot be read", "open the run once where its folder is writable (any "
                                   "forgegate command folds them in), or copy the folder somewhere writable"
                             ) from exc
        with store_errors(path):
            db = _connect(path, "mode=ro&immutable=1")
            tables = _tables(db)
    if not tables >= RUN_TABLES:
        db.close()
        what = "an empty file" if not tables else f"an SQLite file without {', '.join(sorted(RUN_TABLES - tables))}"
        raise damaged(path, f"{what}, not a forgegate run")
    return db
