"""The run store's failures as errors a user can act on: a damaged file, a read-only folder, a wrong path.

SQLite and the filesystem report these as ``sqlite3.DatabaseError`` / ``OSError`` with
texts like "database disk image is malformed"; left alone they end a command as a crash
(exit 1, the code of a FAIL). Each is turned here into a :class:`StoreError` that names
the file and says what to do (exit 2).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from forgegate.errors import StoreError
from forgegate.jsonio import file_kind_problem

# Primary SQLite result codes (https://www.sqlite.org/rescode.html): the low byte of an extended code.
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY = 3, 5, 6, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 10, 11, 13, 14, 26

MOVE_ASIDE = ("move it aside (e.g. `mv {path} {path}.damaged`) and run again to start that run afresh, "
              "or give --store another folder")
ELSEWHERE = "give --store a folder you can write to (or set FORGEGATE_HOME)"


class DamagedStoreError(StoreError):
    """The run file itself is broken (truncated, overwritten, not a run): only moving it aside helps."""


def damaged(path: Path, detail: str) -> DamagedStoreError:
    """The one wording of "this run file cannot be read": what SQLite said, and the two ways out."""
    return DamagedStoreError(path, f"the run file is damaged ({detail})", MOVE_ASIDE.format(path=path))


def _primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file itself is broken (not that it cannot get at it)."""
    text = str(exc)
    return _primary_code(exc) in (SQLITE_CORRUPT, SQLITE_NOTADB) or "malformed" in text or "not a database" in text


def store_fault(path: Path, exc: sqlite3.Error) -> StoreError | None:
    """The user-facing error for an SQLite failure on ``path``; None for one that is forgegate's own bug.

    The one wording of every store failure (the command line's last-resort handler uses it too). SQLite's
    result code decides where Python reports one; its text where it does not (an error raised by hand).
    """
    code = _primary_code(exc)
    text = str(exc)
    if is_damage(exc):
        return damaged(path, text)
    if code == SQLITE_CANTOPEN or (code is None and "unable to open" in text):
        return StoreError(path, f"cannot open the run file ({text})",
                          "check that its folder exists and is readable and writable, or " + ELSEWHERE)
    if code in (SQLITE_READONLY, SQLITE_PERM) or "readonly" in text:
        return StoreError(path, f"cannot use the run file ({text}): it or its folder is read-only "
                                "or not yours", ELSEWHERE)
    if code == SQLITE_FULL:
        return StoreError(path, f"cannot write the run file ({text})", "free some disk space, or " + ELSEWHERE)
    if code in (SQLITE_BUSY, SQLITE_LOCKED) or (code is None and "locked" in text):
        return StoreError(path, f"the run file stayed locked by another process ({text})",
                          "wait for the other forgegate command to finish, then run again")
    if code == SQLITE_IOERR:
        return StoreError(path, f"the disk failed reading or writing the run file ({text})",
                          "check the disk or the mount, or " + ELSEWHERE)
    return None


@contextmanager
def store_errors(path: Path) -> Iterator[None]:
    """Run SQLite work on ``path`` with its failures raised as :class:`StoreError` (bugs pass through)."""
    try:
        yield
    except sqlite3.Error as exc:
        fault = store_fault(path, exc)
        if fault is None:
            raise
        raise fault from exc


def _first_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(".")


def folder_fault(directory: Path, what: str) -> StoreError | None:
    """Why ``directory`` cannot be (or become) a folder: a file is there or on the way to it."""
    blocker = _first_existing(directory)
    if blocker.is_dir():
        return None
    return StoreError(blocker, f"is a file, but {what} needs a folder at {directory}",
                      f"move the file aside, or point {what} at a folder")


def check_folder(directory: Path, what: str) -> None:
    """Refuse ``directory`` when a file stands where it, or one of its parents, should be a folder."""
    fault = folder_fault(directory, what)
    if fault is not None:
        raise fault


def ensure_folder(directory: Path, what: str) -> None:
    """Create ``directory`` (and parents) for writing, or say why it cannot be done."""
    check_folder(directory, what)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(directory, f"cannot create the folder ({exc.strerror or exc})", ELSEWHERE) from exc


def check_run_file(path: Path) -> None:
    """A run's file must be a regular file: a folder, a pipe (FIFO), a device or a socket in its place is refused
    before SQLite tries to open it (SQLite's open of a FIFO waits for a writer forever, deaf to Ctrl-C)."""
    if path.is_dir():
        raise StoreError(path, "is a folder, but a run file (SQLite) belongs there",
                         "move the folder aside, or give --store another folder")
    try:
        mode = os.stat(path).st_mode
    except OSError:  # absent (created later) or a dangling link: SQLite says so in its own words
        return
    kind = file_kind_problem(mode)
    if kind is not None:
        raise StoreError(path, f"is {kind}, but a run file (SQLite) belongs there",
                         "move it aside (a run store holds only forgegate's .sqlite files), or give --store another "
                         "folder")
