"""The durable run store: one SQLite file (WAL) per run, append-only, one row per attempt outcome.

A finished request is never repeated: on resume the engine asks ``finished_keys()``
and generates only what is missing or ended in error. The latest row for a request
key is its current answer; older rows stay as history (append-only).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forgegate.core.credentials import hide_credentials
from forgegate.core.records import Completion, GenerationRequest, StoredResponse
from forgegate.core.version import __version__
from forgegate.errors import UsageError
from forgegate.store.faults import check_run_file, damaged, ensure_folder, store_errors
from forgegate.store.readonly import open_readonly
from forgegate.store.run_meta import RunMeta

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_key TEXT NOT NULL,
    arm TEXT NOT NULL,
    item_id TEXT NOT NULL,
    seed INTEGER,
    request_json TEXT NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT,
    tokens INTEGER,
    token_source TEXT,
    token_texts TEXT,
    finish TEXT NOT NULL,
    latency_s REAL,
    ttft_s REAL,
    model_digest TEXT,
    endpoint TEXT,
    error TEXT,
    attempts INTEGER NOT NULL,
    created TEXT NOT NULL,
    prompt_tokens INTEGER,
    finished_at REAL,
    extra TEXT
);
CREATE INDEX IF NOT EXISTS responses_key ON responses (request_key, seq);
CREATE TABLE IF NOT EXISTS reviews (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_key TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),
    reviewer TEXT NOT NULL,
    note TEXT,
    created TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS reviews_never_updated BEFORE UPDATE ON reviews
BEGIN SELECT RAISE(ABORT, 'a review is never overwritten: record a new decision beside it'); END;
CREATE TRIGGER IF NOT EXISTS reviews_never_deleted BEFORE DELETE ON reviews
BEGIN SELECT RAISE(ABORT, 'a review is never deleted: record a new decision beside it'); END;
CREATE TRIGGER IF NOT EXISTS reviews_never_replaced BEFORE INSERT ON reviews
WHEN EXISTS (SELECT 1 FROM reviews WHERE seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'a review is never replaced: record a new decision beside it'); END;
CREATE TRIGGER IF NOT EXISTS reviews_numbered_in_order AFTER INSERT ON reviews WHEN NEW.seq <= 0
BEGIN SELECT RAISE(ABORT, 'a review takes the next number: insert it without seq'); END;
"""

REVIEW_TRIGGERS = ("reviews_never_updated", "reviews_never_deleted", "reviews_never_replaced",
                   "reviews_numbered_in_order")
"""The triggers that keep ``reviews`` append-only on any connection, ours or a user's ``sqlite3``: UPDATE and
DELETE are refused, and so is an INSERT that names the ``seq`` of an existing decision, which is how ``INSERT OR
REPLACE``, ``REPLACE`` and an UPSERT would rewrite one (REPLACE deletes the old row without firing a delete
trigger unless ``recursive_triggers`` is on, so the guard is on the insert). An insert that leaves ``seq`` to
SQLite is seen by a BEFORE trigger as ``-1``; the AFTER trigger refuses a row numbered 0 or below, so no row can
hold that number and block every later decision."""

_KEYS_PER_QUERY = 500
"""Keys bound in one ``IN (...)`` (SQLite's default limit on bound parameters is 999 in older builds)."""

ADDED_COLUMNS: tuple[tuple[str, str], ...] = (("prompt_tokens", "INTEGER"), ("finished_at", "REAL"),
                                              ("extra", "TEXT"))
"""Columns added after the first release of the store, in order: old stores gain them on open."""


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """A store written before a column existed gains it (NULL in old rows) instead of failing to open."""
    have = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
    for name, kind in ADDED_COLUMNS:
        if name not in have:
            db.execute(f"ALTER TABLE responses ADD COLUMN {name} {kind}")


@dataclass(frozen=True)
class ReviewDecision:
    """One human decision as the store keeps it: who decided, when (UTC, ISO 8601) and why.

    Decisions are appended, never rewritten (the table's triggers refuse UPDATE, DELETE, REPLACE and UPSERT):
    a changed mind is a new decision beside the old one, so the trail stays readable.
    """

    verdict: str  # "pass" / "fail"
    reviewer: str
    decided_at: str
    note: str | None


def _extra(text: str | None) -> dict[str, str]:
    """The stored ``Completion.extra`` (a JSON object of strings; NULL in rows from before the column)."""
    if text is None:
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"a response's extra is not a JSON object: {text[:80]!r}")
    return {str(k): str(v) for k, v in value.items()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunStore:
    """One run's SQLite file. Open with ``RunStore.open(path)``; close when done."""

    def __init__(self, path: Path, connection: sqlite3.Connection, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self._db = connection

    @classmethod
    def open(cls, path: Path, *, create: bool = True, readonly: bool = False) -> RunStore:
        """Open a run file for writing (created when ``create``), or ``readonly`` for commands that only read.

        Read-only opening never writes, so it works on a read-only folder or mount; a damaged
        file, a folder in the file's place or a read-only folder for a writer is a StoreError.
        """
        path = Path(path)
        check_run_file(path)
        if (readonly or not create) and not path.exists():
            raise UsageError(f"no run store at {path}")
        if readonly:
            return cls(path, open_readonly(path), readonly=True)
        ensure_folder(path.parent, "the run store")
        with store_errors(path):
            db = sqlite3.connect(path, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.executescript(SCHEMA)
                _add_missing_columns(db)
            except BaseException:
                db.close()
                raise
        return cls(path, db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- run identity -------------------------------------------------------------------------
    def init_meta(self, identity: RunMeta) -> None:
        """Write the run's identity once; a resumed run must present the same identity."""
        if not self._meta_rows():
            rows = identity.model_copy(update={"forgegate_version": __version__, "created": _now()}).rows()
            rows = {key: hide_credentials(value) for key, value in rows.items()}
            with store_errors(self.path), self._db:
                self._db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(rows.items()))
            return
        existing = self.meta()
        for key in identity.model_fields_set & existing.model_fields_set:
            there, now = getattr(existing, key), getattr(identity, key)
            if there != now:
                raise UsageError(
                    f"run store {self.path} belongs to a different run: '{key}' is "
                    f"{there!r} there, {now!r} now; use another --store"
                )

    def meta(self) -> RunMeta:
        """The run's metadata as its typed record (a value forgegate never writes there is a damaged store)."""
        try:
            return RunMeta.from_rows(self._meta_rows())
        except ValueError as exc:
            raise damaged(self.path, str(exc)) from None

    def update_meta(self, facts: RunMeta) -> None:
        """Record facts learned during the run (a model digest, where its files were last seen): the fields
        ``facts`` sets, and only those, replace what the store held."""
        for key, value in facts.rows().items():
            value = hide_credentials(value)  # a --base-url's password is never stored
            self._fetch(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def _meta_rows(self) -> dict[str, str]:
        return dict(self._fetch("SELECT key, value FROM meta")[1])

    # -- responses ------------------------------------------------------------------------------
    def record(
        self,
        *,
        request_key: str,
        arm: str,
        item_id: str,
        seed: int | None,
        request: GenerationRequest,
        completion: Completion | None,
        error: str | None,
        attempts: int,
    ) -> None:
        """Append one outcome. Exactly one of ``completion`` / ``error`` is given."""
        if (completion is None) == (error is None):
            raise ValueError("record needs a completion or an error, not both")
        c = completion
        error = hide_credentials(error) if error is not None else None
        self._fetch(
            "INSERT INTO responses (request_key, arm, item_id, seed, request_json, prompt, response, tokens,"
            " token_source, token_texts, finish, latency_s, ttft_s, model_digest, endpoint, error, attempts,"
            " created, prompt_tokens, finished_at, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?, ?, ?)",
            (
                request_key, arm, item_id, seed, request.model_dump_json(), request.prompt,
                c.text if c else None, c.tokens if c else None, c.token_source if c else None,
                json.dumps(list(c.token_texts)) if c and c.token_texts is not None else None,
                c.finish if c else "error", c.latency_s if c else None, c.ttft_s if c else None,
                c.model_digest if c else None, hide_credentials(c.endpoint) if c and c.endpoint else None, error,
                attempts, _now(),
                c.prompt_tokens if c else None, time.time(), json.dumps(c.extra) if c and c.extra else None,
            ),
        )

    def row_count(self) -> int:
        """Every outcome row (answers and errors, history included)."""
        return int(self._fetch("SELECT COUNT(*) FROM responses")[1][0][0])

    def finished_keys(self) -> set[str]:
        """Keys whose latest row is a real answer: never generated again. A server's answer the store does
        not show the server finished (``StoredResponse.unconfirmed``: a stream it may have cut) is not one."""
        return {r.request_key for r in self.latest() if r.ok and not r.unconfirmed}

    def latest(self) -> list[StoredResponse]:
        """The current outcome of every request key, in first-seen order."""
        names, rows = self._fetch(
            "SELECT r.* FROM responses r JOIN (SELECT request_key, MAX(seq) AS seq FROM responses"
            " GROUP BY request_key) last ON r.seq = last.seq ORDER BY (SELECT MIN(seq) FROM responses f"
            " WHERE f.request_key = r.request_key)"
        )
        return [self._to_stored(dict(zip(names, row, strict=True))) for row in rows]

    def latest_for(self, keys: Collection[str]) -> dict[str, StoredResponse]:
        """The current outcome of each of ``keys`` that the store holds (a keyed read: a caller asking for a few
        keys at a time, an LLM judge's batches, does not re-read the whole run each time)."""
        out: dict[str, StoredResponse] = {}
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), _KEYS_PER_QUERY):
            chunk = wanted[start:start + _KEYS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            names, rows = self._fetch(
                f"SELECT r.* FROM responses r WHERE r.seq IN (SELECT MAX(seq) FROM responses"
                f" WHERE request_key IN ({marks}) GROUP BY request_key)", tuple(chunk))
            for row in rows:
                stored = self._to_stored(dict(zip(names, row, strict=True)))
                out[stored.request_key] = stored
        return out

    def history(self, request_key: str) -> Iterator[dict[str, Any]]:
        names, rows = self._fetch("SELECT * FROM responses WHERE request_key = ? ORDER BY seq", (request_key,))
        for row in rows:
            yield dict(zip(names, row, strict=True))

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one statement and read all its rows, SQLite failures raised as StoreErrors naming the file."""
        with store_errors(self.path):
            cursor = self._db.execute(sql, params)
            names = [d[0] for d in cursor.description or ()]
            return names, cursor.fetchall()

    @staticmethod
    def _to_stored(row: dict[str, Any]) -> StoredResponse:
        texts = row["token_texts"]
        return StoredResponse(
            request_key=row["request_key"], arm=row["arm"], item_id=row["item_id"], seed=row["seed"],
            request=GenerationRequest.model_validate_json(row["request_json"]),
            response=row["response"], tokens=row["tokens"], token_source=row["token_source"],
            token_texts=tuple(json.loads(texts)) if texts is not None else None,
            finish=row["finish"], latency_s=row["latency_s"], ttft_s=row["ttft_s"],
            model_digest=row["model_digest"], endpoint=row["endpoint"], error=row["error"],
            attempts=row["attempts"], prompt_tokens=row.get("prompt_tokens"), finished_at=row.get("finished_at"),
            extra=_extra(row.get("extra")),
        )

    # -- human review ---------------------------------------------------------------------------
    def add_review(self, request_key: str, verdict: str, reviewer: str, note: str | None) -> None:
        self._fetch(
            "INSERT INTO reviews (request_key, verdict, reviewer, note, created) VALUES (?, ?, ?, ?, ?)",
            (request_key, verdict, reviewer, note, _now()),
        )

    def reviews(self) -> dict[str, tuple[str, str]]:
        """request_key -> (verdict, reviewer) of the latest review."""
        return {key: (trail[-1].verdict, trail[-1].reviewer) for key, trail in self.review_trails().items()}

    def review_trails(self) -> dict[str, tuple[ReviewDecision, ...]]:
        """request_key -> every decision on it, oldest first (the last one is the one that counts)."""
        out: dict[str, list[ReviewDecision]] = {}
        if self.readonly and "reviews" not in self._tables():  # a store from before reviews existed
            return {}
        rows = self._fetch("SELECT request_key, verdict, reviewer, created, note FROM reviews ORDER BY seq")[1]
        for key, verdict, reviewer, created, note in rows:
            out.setdefault(key, []).append(ReviewDecision(verdict, reviewer, created, note))
        return {key: tuple(trail) for key, trail in out.items()}

    def _tables(self) -> set[str]:
        return {row[0] for row in self._fetch("SELECT name FROM sqlite_master WHERE type = 'table'")[1]}


def discard_unanswered(path: Path) -> bool:
    """Remove the run file at ``path`` (and SQLite's ``-wal`` / ``-shm`` beside it) if it holds no response:
    what a command refused for bad input after it made a new run leaves behind (issue 45: "a command refused
    for bad input still leaves an empty run in the store"). The caller holds the run's lock and made the file
    in this command; a file with any response, even an error, is kept. Returns whether it removed it."""
    if not path.exists():
        return False
    with RunStore.open(path, create=False) as store:
        if store.latest():
            return False
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    return True
