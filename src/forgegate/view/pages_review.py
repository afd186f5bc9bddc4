"""The review queue of a run: every answer that awaits a human decision, decided on the page.

A decision goes through ``record_review``, the function ``forgegate review`` calls, so the
page and the command write the same store record; the run is then re-scored the way
``forgegate rescore`` does it, and the page shows the verdict that results.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from forgegate.errors import UsageError
from forgegate.pipeline.review import ReviewState, item_review, record_review, review_states, run_battery
from forgegate.results.eval import ItemReview
from forgegate.view.render import config_of, render
from forgegate.view.scored import load_run
from forgegate.view.security import verified_form

DECISIONS = {"pass": True, "fail": False}


@dataclass(frozen=True)
class QueueEntry:
    """One answer in the queue: its review state and trail, and what its battery item requires."""

    state: ReviewState
    review: ItemReview | None
    """The item's review as the run's results show it (``item_review``)."""
    require: list[list[str]] | None
    expected: list[str]
    forbid: list[str]


def _queue(request: Request, error: str | None = None, status: int = 200) -> Response:
    run = load_run(config_of(request).store_dir, request.path_params["run_id"])
    battery = run_battery(run.meta)
    entries: list[QueueEntry] = []
    for state in review_states(run.path):
        item = None
        if battery is not None:
            try:
                item = battery.by_id(state.row.item_id)
            except KeyError:
                item = None
        entries.append(QueueEntry(state, item_review(state.trail), item.require if item else None,
                                   item.expected_list if item else [], item.forbid if item else []))
    pending = [e for e in entries if e.state.decision is None]
    decided = [e for e in entries if e.state.decision is not None]
    return render(request, "review.html", status=status, run=run, pending=pending, decided=decided, error=error,
                  just_decided=request.query_params.get("decided"))


def review_page(request: Request) -> Response:
    return _queue(request)


async def review_decide(request: Request) -> Response:
    fields = await verified_form(request)
    run_id = request.path_params["run_id"]
    store_dir = config_of(request).store_dir
    run = await run_in_threadpool(load_run, store_dir, run_id)
    key = fields.get("key", "")
    try:
        if fields.get("decision") not in DECISIONS:
            raise UsageError("choose pass or fail")
        await run_in_threadpool(record_review, run.path, key, passed=DECISIONS[fields["decision"]],
                                reviewer=fields.get("reviewer"), note=fields.get("note") or None)
    except UsageError as exc:
        message = str(exc).replace("--pass or --fail and --reviewer NAME", "pass or fail and a reviewer's name")
        return await run_in_threadpool(_queue, request, message, 400)
    # the queue page re-scores the run, so it shows (and the store records) the verdict the decision gives
    return RedirectResponse(f"/runs/{quote(run_id, safe='')}/review?decided={quote(key, safe='')}", status_code=303)


ROUTES = [
    Route("/runs/{run_id}/review", review_page, methods=["GET"]),
    Route("/runs/{run_id}/review", review_decide, methods=["POST"]),
]
