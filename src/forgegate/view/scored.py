"""A stored run as its page shows it: scored through the same re-scoring ``forgegate rescore`` does.

Nothing is scored here: an eval or live run goes through ``rescore_stored_run`` (under the
gate config it was run with) and the page reads the result JSON that returns. A plan run
is shown as its stored answers: its verdict needs the plan (``forgegate run PLAN``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.core.records import StoredResponse
from forgegate.errors import ForgegateError, UsageError
from forgegate.pipeline.rescore import rescore_stored_run
from forgegate.store import RunMeta
from forgegate.view.runs import Progress, progress_of, read_run, run_file
from forgegate.view.security import Refused

SCORED_KINDS = frozenset({"eval", "live"})
OUTCOMES = ("pass", "fail", "pending", "error")


@dataclass(frozen=True)
class StoredRun:
    run_id: str
    path: Path
    meta: RunMeta
    rows: list[StoredResponse]
    progress: Progress
    result: dict[str, Any] | None
    """The result JSON of a re-scored eval/live run; None for a plan run or one that cannot be scored."""
    not_scored: str | None
    """Why there is no result (None when there is one)."""


def find_run_file(store_dir: Path, run_id: str) -> Path:
    try:
        return run_file(store_dir, run_id)
    except UsageError as exc:
        raise Refused(404, str(exc)) from None


def load_run(store_dir: Path, run_id: str) -> StoredRun:
    """Read a run and, for an eval or live run, score it as ``forgegate rescore`` would."""
    path = find_run_file(store_dir, run_id)
    meta, rows = read_run(path)
    result, why = None, None
    if meta.kind in SCORED_KINDS:
        try:
            result, _ = rescore_stored_run(str(path), store_dir=None, battery_path=None, gate_config_path=None)
        except ForgegateError as exc:
            why = f"this run cannot be scored now: {exc}"
    else:
        why = (f"a '{meta.kind}' run: its verdict comes from its plan (`forgegate run PLAN --json`); "
               "here are its stored answers")
    return StoredRun(run_id, path, meta, rows, progress_of(meta, rows), result, why)


def outcome(item: dict[str, Any]) -> str:
    """One word for an item of a result: pass, fail, pending (awaits a reviewer) or error (no answer)."""
    if item.get("response") is None or item.get("finish") in ("error", "missing"):
        return "error"
    if item.get("needs_review") and item.get("review") is None:
        return "pending"
    return "pass" if item.get("passed") else "fail"


def filtered_items(result: dict[str, Any], category: str, word: str, mode: str) -> list[dict[str, Any]]:
    """The result's items that match every filter given (an empty filter matches all)."""
    return [i for i in result.get("items", [])
            if (not category or i.get("category") == category) and (not word or outcome(i) == word)
            and (not mode or mode in (i.get("failure_modes") or []))]


def item_key(result_item: dict[str, Any], rows: list[StoredResponse]) -> str | None:
    """The store's request key of a result item (matched by item id and seed)."""
    for row in rows:
        if row.item_id == result_item.get("id") and row.seed == result_item.get("seed"):
            return row.request_key
    return None
