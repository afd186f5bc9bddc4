"""The runs of a store as the view shows them: one summary a run, its live progress, and finding a run by id.

A run id in a URL is looked up among the store's own files by exact name only: a page
never opens a path a visitor typed. A damaged file is a summary that says so, never a crash.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import ConfigDict

from forgegate.core.records import StoredResponse
from forgegate.errors import ForgegateError, UsageError
from forgegate.results.base import Strict
from forgegate.store import GenerationMarker, RunMeta, RunStore, list_runs

STORE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, ForgegateError, OSError, ValueError, KeyError)
"""What reading a run file can raise when the file is damaged or not a run store."""


class Progress(Strict):
    """How far a run's generation is: answers, errors, the planned total, and, while generating, rate and ETA.

    The runs page's progress poll answers with this model's dump (``Strict.to_json``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answered: int
    errors: int
    total: int
    generating: bool
    tokens: int
    tokens_per_s: float | None
    eta_s: float | None


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    kind: str
    label: str
    verdict: str
    created: str
    progress: Progress | None
    damaged: str | None
    """Why the file could not be read (None: it could)."""
    backend: str = "-"
    """The backend an eval or live run generated with (a plan's arms name theirs: "-")."""


def _alive(info: GenerationMarker) -> bool:
    """A generating marker left by a process that died (kill -9) is not a live run on this host."""
    if info.host != socket.gethostname():
        return True  # another machine's process: trust its marker
    try:
        os.kill(info.pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def progress_of(meta: RunMeta, rows: list[StoredResponse], now: float | None = None) -> Progress:
    """Answers so far against the planned total; tokens/s and ETA over what this generation has done."""
    answered = sum(r.ok for r in rows)
    errors = len(rows) - answered
    planned = meta.planned_requests
    total = planned if planned is not None and planned >= len(rows) else len(rows)
    info = meta.generating
    generating = info is not None and _alive(info)
    tokens = sum(r.tokens or 0 for r in rows if r.ok)
    rate = eta = None
    if generating and info is not None:
        since = info.since
        elapsed = max((now or time.time()) - since, 1e-6)
        recent = [r for r in rows if r.finished_at is not None and r.finished_at >= since]
        rate = sum(r.tokens or 0 for r in recent if r.ok) / elapsed
        per_s = len(recent) / elapsed
        eta = (total - len(rows)) / per_s if per_s > 0 else None
    return Progress(answered=answered, errors=errors, total=total, generating=generating, tokens=tokens,
                    tokens_per_s=rate, eta_s=eta)


def run_file(store_dir: Path, run_id: str) -> Path:
    """The store file of ``run_id`` (its exact name); a clear error for an id the store does not hold."""
    for path in list_runs(store_dir):
        if path.stem == run_id:
            return path
    raise UsageError(f"no run '{run_id}' in {store_dir}: the runs page lists the runs this store holds")


def read_run(path: Path) -> tuple[RunMeta, list[StoredResponse]]:
    """A run's meta and current answers; a damaged file raises a UsageError that names it and what to do."""
    try:
        with RunStore.open(path, readonly=True) as store:
            return store.meta(), store.latest()
    except STORE_ERRORS as exc:
        raise UsageError(f"run file {path} cannot be read ({type(exc).__name__}: {exc}): it is damaged or not "
                         "a forgegate run store; move it out of the store folder, or run the command that "
                         "made it again") from exc


def summarise(path: Path) -> RunSummary:
    try:
        meta, rows = read_run(path)
    except UsageError as exc:
        return RunSummary(path.stem, "-", "-", "-", "-", None, str(exc))
    return RunSummary(path.stem, meta.kind or "-", meta.label or "-", meta.last_gate or "-",
                      meta.created or "-", progress_of(meta, rows), None, backend=meta.backend or "-")


def store_summaries(store_dir: Path) -> list[RunSummary]:
    """Every run in the store, newest first."""
    return [summarise(path) for path in reversed(list_runs(store_dir))]
