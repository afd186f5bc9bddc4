"""A recorded review is never rewritten, by any SQL route a user's own ``sqlite3`` connection can take (issue 38):
UPDATE, DELETE, INSERT OR REPLACE, REPLACE, UPSERT, INSERT OR IGNORE on an existing seq, a row numbered 0 or
below. The triggers live in the file, so they hold for connections forgegate did not open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from forgegate.store import RunStore

COLUMNS = "(seq, request_key, verdict, reviewer, note, created)"
FORGED = "(1, 'k1', 'fail', 'mallory', NULL, '2026-01-01T00:00:00+00:00')"
ROUTES = [
    f"INSERT OR REPLACE INTO reviews {COLUMNS} VALUES {FORGED}",
    f"REPLACE INTO reviews {COLUMNS} VALUES {FORGED}",
    f"INSERT INTO reviews {COLUMNS} VALUES {FORGED} ON CONFLICT(seq) DO UPDATE SET verdict = 'fail'",
    f"INSERT INTO reviews {COLUMNS} VALUES {FORGED} ON CONFLICT DO NOTHING",
    f"INSERT OR IGNORE INTO reviews {COLUMNS} VALUES {FORGED}",
    f"INSERT OR FAIL INTO reviews {COLUMNS} VALUES {FORGED}",
    f"INSERT OR ROLLBACK INTO reviews {COLUMNS} VALUES {FORGED}",
    "UPDATE reviews SET verdict = 'fail' WHERE seq = 1",
    "UPDATE OR REPLACE reviews SET seq = 2 WHERE seq = 1",
    "DELETE FROM reviews WHERE seq = 1",
    "DELETE FROM reviews",
    f"INSERT INTO reviews {COLUMNS} VALUES (-1, 'k1', 'fail', 'mallory', NULL, 't')",
    f"INSERT INTO reviews {COLUMNS} VALUES (0, 'k1', 'fail', 'mallory', NULL, 't')",
]


@pytest.fixture()
def store_with_two_decisions(tmp_path: Path) -> Path:
    path = tmp_path / "run.sqlite"
    with RunStore.open(path) as store:
        store.add_review("k1", "pass", "ana", "reads well")
        store.add_review("k2", "pass", "ana", None)
    return path


def trail(path: Path) -> list[tuple[int, str, str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT seq, request_key, verdict, reviewer FROM reviews ORDER BY seq").fetchall()


@pytest.mark.parametrize("statement", ROUTES)
def test_no_sql_route_rewrites_a_recorded_decision(store_with_two_decisions: Path, statement: str) -> None:
    before = trail(store_with_two_decisions)
    db = sqlite3.connect(store_with_two_decisions, isolation_level=None)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="a review (is never|takes the next number)"):
            db.execute(statement)
    finally:
        db.close()
    assert trail(store_with_two_decisions) == before


def test_recursive_triggers_do_not_change_it_and_new_decisions_still_append(store_with_two_decisions: Path) -> None:
    db = sqlite3.connect(store_with_two_decisions, isolation_level=None)
    db.execute("PRAGMA recursive_triggers = ON")
    with pytest.raises(sqlite3.DatabaseError, match="never replaced"):
        db.execute(f"INSERT OR REPLACE INTO reviews {COLUMNS} VALUES {FORGED}")
    db.close()
    with RunStore.open(store_with_two_decisions) as store:
        store.add_review("k1", "fail", "bo", "changed my mind")  # a new decision beside the old one
        trails = store.review_trails()
    assert [d.verdict for d in trails["k1"]] == ["pass", "fail"]
    assert [row[0] for row in trail(store_with_two_decisions)] == [1, 2, 3]


def test_a_store_written_before_the_insert_trigger_gains_it_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with RunStore.open(path) as store:
        store.add_review("k1", "pass", "ana", None)
    with sqlite3.connect(path) as db:  # as an older forgegate left it: only the update and delete triggers
        db.execute("DROP TRIGGER reviews_never_replaced")
        db.execute("DROP TRIGGER reviews_numbered_in_order")
    RunStore.open(path).close()
    with sqlite3.connect(path) as db, pytest.raises(sqlite3.DatabaseError, match="never replaced"):
        db.execute(f"REPLACE INTO reviews {COLUMNS} VALUES {FORGED}")
