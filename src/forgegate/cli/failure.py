"""How a command that did not reach a verdict ends: the one exit-code discipline (README, "Exit codes").

0, 1, 3 and 4 come only from a gate. Everything else is decided here, for every command:

- a mistake the user can fix (bad input, a bad option, a path or run store that is not usable)
  prints one message -- what, where, what to do -- and exits 2;
- Ctrl-C prints how many answers are stored and the command line that resumes, and exits 130;
  SIGTERM does the same and exits 143 (``forgegate.cli.main`` turns it into Ctrl-C's exception);
- anything else is a bug in forgegate: "internal error", the traceback written to a crash file
  whose path is printed, exit 70 -- never 1, which a CI job would read as FAIL.

Only the standard library is imported at module level: the handler is set up before ``--help`` runs.
"""

from __future__ import annotations

import errno
import os
import shlex
import sys
import tempfile
import time
import traceback
from pathlib import Path

from forgegate.activity import Activity

# What to do about a path the operating system refused, by the kind of refusal.
_PATH_ADVICE: dict[type[OSError], str] = {
    PermissionError: "permission denied: change its permissions, or point forgegate elsewhere "
                     "(--store, --out, --json, FORGEGATE_HOME)",
    IsADirectoryError: "it is a folder where a file is needed: give the path of a file",
    NotADirectoryError: "part of it is a file where a folder is needed: move that file aside or choose another "
                        "path",
    FileExistsError: "it exists, and not as the folder needed there: move it aside or choose another path",
    FileNotFoundError: "it does not exist: check the path",
}
# Refusals that are about the machine, not one path: still the user's to fix.
_SYSTEM_ADVICE: dict[int, str] = {
    errno.ENOSPC: "no space left on the device: free some space or point --store elsewhere",
    errno.EROFS: "the file system is read-only: point --store (or FORGEGATE_HOME) at a writable folder",
    errno.EDQUOT: "disk quota exceeded: free some space or point --store elsewhere",
    errno.EACCES: "permission denied: check the permissions of the folders forgegate writes",
}
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def user_fault(exc: BaseException, store: Path | None = None) -> str | None:
    """The message for an error the user must fix (exit 2), or None when it is a bug in forgegate.

    ``store`` is the run store the command was writing, when it had said so: it names the file
    in a database error, which sqlite itself does not.
    """
    import sqlite3

    from forgegate.errors import ForgegateError

    if isinstance(exc, ForgegateError):
        return str(exc)
    if type(exc) in (sqlite3.DatabaseError, sqlite3.OperationalError):
        return _store_fault(exc, store)  # ProgrammingError, IntegrityError and the rest are bugs
    if isinstance(exc, OSError):
        return _os_fault(exc)
    return None


def _store_fault(exc: BaseException, store: Path | None) -> str:
    """An SQLite error that escaped its store's own wrapper: worded by :mod:`forgegate.store.faults`, the one home."""
    import sqlite3

    from forgegate.store.faults import damaged, store_fault

    path = store if store is not None else Path("a run store")
    assert isinstance(exc, sqlite3.Error)
    fault = store_fault(path, exc) or damaged(path, str(exc))
    return str(fault)


def _os_fault(exc: OSError) -> str | None:
    path = exc.filename
    if path is not None and not _inside_package(path):
        advice = next((text for kind, text in _PATH_ADVICE.items() if isinstance(exc, kind)), None)
        advice = advice or _SYSTEM_ADVICE.get(exc.errno or 0) or f"{exc.strerror or exc}: check the path"
        second = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{path}{second}: {advice}"
    if path is None and exc.errno in _SYSTEM_ADVICE:
        return _SYSTEM_ADVICE[exc.errno or 0]
    return None  # a file of forgegate's own, or a socket error that escaped a backend: a bug


def _inside_package(path: str | bytes | int) -> bool:
    """A path inside forgegate's own files (bundled data) that fails is forgegate's fault, not the user's."""
    if not isinstance(path, str):
        return False
    try:
        return Path(path).resolve().is_relative_to(_PACKAGE_DIR)
    except (OSError, ValueError, RuntimeError):
        return False


def write_crash_report(exc: BaseException, argv: list[str]) -> Path | None:
    """Write the traceback and what ran to ``$TMPDIR/forgegate-crash-<UTC time>-<pid>.txt``; its path, or None."""
    from forgegate.core.version import __version__

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    path = Path(tempfile.gettempdir()) / f"forgegate-crash-{stamp}-{os.getpid()}.txt"
    text = (f"forgegate {__version__}, Python {sys.version.split()[0]} on {sys.platform}\n"
            f"command: {shlex.join(argv)}\n\n" + "".join(traceback.format_exception(exc)))
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def crash_message(exc: BaseException, report: Path | None) -> str:
    """What the user reads about a bug: that it is one, and where its traceback is."""
    where = (f"the traceback is in {report}" if report is not None
             else "the traceback could not be written to a file; it follows")
    return (f"internal error: {type(exc).__name__}: {exc}\n"
            f"This is a bug in forgegate, not a verdict on the model; {where}. "
            "Please attach it to a bug report.")


def resume_command(argv: list[str]) -> str:
    """The command line that repeats (and so resumes) this one, as the user can paste it."""
    program = Path(argv[0]).name if argv else "forgegate"
    if program in ("main.py", "__main__.py", "-c", ""):
        return shlex.join([sys.executable, "-m", "forgegate.cli.main", *argv[1:]])
    return shlex.join(["forgegate" if program == "forgegate" else argv[0], *argv[1:]])


def interrupted_message(activity: Activity, argv: list[str], how: str = "interrupted") -> str:
    """Ctrl-C (or SIGTERM, ``how="terminated"``): what each store written by the command holds now (it is
    kept), and how to go on."""
    if not activity.stores:
        return f"{how}."
    lines = [f"{how}: {_stored_answers(note.path)} of {note.planned} answers are stored in {note.path}"
             for note in activity.stores]
    lines.append(f"resume with: {resume_command(argv)}")
    return "\n".join(lines)


def _stored_answers(path: Path) -> str:
    """The number of requests with an answer in the store at ``path`` ('?' when it cannot be read)."""
    from forgegate.store import RunStore

    try:
        with RunStore.open(path, create=False) as store:
            return str(len(store.finished_keys()))
    except Exception:  # noqa: BLE001 - a count is a courtesy; the interruption is reported either way
        return "?"
