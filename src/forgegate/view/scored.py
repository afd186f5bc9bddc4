"""A stored run as its page shows it: scored through the same re-scoring ``forgegate rescore`` does.

Nothing is scored here: an eval or live run goes through ``rescore_stored_run`` (under the
gate config it was run with) and the page reads the typed result that returns. A plan run
is shown as its stored answers: its verdict needs the plan (``forgegate run PLAN``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.core.records import StoredResponse
from forgegate.errors import ForgegateError, UsageError
from forgegate.pipeline.session.rescore import rescore_stored_run
from forgegate.results import EvalItem, EvalResult
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
    result: EvalResult | None
    """The typed result of a re-scored eval/live run; None for a plan run or one that cannot be scored."""
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


def outcome(item: EvalItem) -> str:
    """One word for an item of a result: pass, fail, pending (awaits a reviewer) or error (no answer)."""
    if item.response is None or item.finish in ("error", "missing"):
        return "error"
    if item.needs_review and item.review is None:
        return "pending"
    return "pass" if item.passed else "fail"


def filtered_items(result: EvalResult, category: str, word: str, mode: str) -> list[EvalItem]:
    """The result's items that match every filter given (an empty filter matches all)."""
    return [i for i in result.items
            if (not category or i.category == category) and (not word or outcome(i) == word)
            and (not mode or mode in i.failure_modes)]


def item_key(result_item: EvalItem, rows: list[StoredResponse]) -> str | None:
    """The store's request key of a result item (matched by item id and seed)."""
    for row in rows:
        if row.item_id == result_item.id and row.seed == result_item.seed:
            return row.request_key
    return None
