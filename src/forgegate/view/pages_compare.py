"""Two runs on the same battery side by side: the comparison ``forgegate compare`` makes, and the flipped items.

The numbers come from ``compare_runs`` over ``eval_run_scores`` (the command's own road,
with its default bootstrap seed and resamples); only the answers are read from the stores.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from forgegate.lineage import NotComparableError, RunScores, compare_runs
from forgegate.pipeline.session.sources import eval_run_scores
from forgegate.store import RunStore
from forgegate.view.render import config_of, render
from forgegate.view.runs import store_summaries
from forgegate.view.scored import SCORED_KINDS, find_run_file

BOOTSTRAP_SEED = 0
RESAMPLES = 9999
"""``forgegate compare``'s defaults, so the page and the command print the same intervals."""


def _answers(path: Any) -> dict[tuple[str, int | None], str | None]:
    with RunStore.open(path, readonly=True) as store:
        return {(r.item_id, r.seed): (r.response if r.ok else f"[{r.finish}] {r.error}") for r in store.latest()}


def flipped(old: RunScores, new: RunScores, old_path: Any, new_path: Any) -> list[dict[str, Any]]:
    """Items scored in both runs whose pass/fail differs, with both answers."""
    old_items = {i.key: i for i in old.items}
    old_text, new_text = _answers(old_path), _answers(new_path)
    rows = []
    for item in new.items:
        before = old_items.get(item.key)
        if before is None or before.errored or item.errored or before.passed == item.passed:
            continue
        rows.append({"id": item.id, "seed": item.seed, "category": item.category,
                     "change": "gained" if item.passed else "lost",
                     "old": old_text.get(item.key), "new": new_text.get(item.key),
                     "old_modes": sorted(before.all_failure_modes), "new_modes": sorted(item.all_failure_modes)})
    return rows


def compare_page(request: Request) -> Response:
    store_dir = config_of(request).store_dir
    runs = [r for r in store_summaries(store_dir) if r.kind in SCORED_KINDS] if store_dir.is_dir() else []
    old_id, new_id = request.query_params.get("old", ""), request.query_params.get("new", "")
    context: dict[str, Any] = {"runs": runs, "old_id": old_id, "new_id": new_id, "comparison": None,
                               "flips": [], "problem": None}
    if old_id and new_id:
        old_path, new_path = find_run_file(store_dir, old_id), find_run_file(store_dir, new_id)
        old, new = eval_run_scores(str(old_path)), eval_run_scores(str(new_path))
        try:
            comparison = compare_runs(old, new, seed=BOOTSTRAP_SEED, n_resamples=RESAMPLES,
                                      old_label=old_id, new_label=new_id)
        except NotComparableError as exc:
            context["problem"] = str(exc)
        else:
            context.update(comparison=comparison, flips=flipped(old, new, old_path, new_path))
    return render(request, "compare.html", **context)


ROUTES = [Route("/compare", compare_page)]
