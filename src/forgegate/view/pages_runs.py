"""The runs page, a run's page, one item's page, and the progress JSON the pages poll while a run generates."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from forgegate.report.gloss_section import segments
from forgegate.report.samples_section import item_passes
from forgegate.store import RunStore
from forgegate.view.pages_results import summaries
from forgegate.view.render import config_of, render
from forgegate.view.runs import progress_of, read_run, store_summaries
from forgegate.view.scored import OUTCOMES, filtered_items, find_run_file, item_key, load_run, outcome
from forgegate.view.security import Refused


def runs_page(request: Request) -> Response:
    store_dir = config_of(request).store_dir
    if not store_dir.is_dir():
        return render(request, "runs.html", store=str(store_dir), runs=[],
                      missing=f"there is no run store at {store_dir}: run `forgegate eval --store {store_dir}` "
                              "(or start `forgegate view --store DIR` on the folder that holds your runs)")
    return render(request, "runs.html", store=str(store_dir), runs=store_summaries(store_dir), missing=None)


def progress_json(request: Request) -> Response:
    path = find_run_file(config_of(request).store_dir, request.path_params["run_id"])
    meta, rows = read_run(path)
    return JSONResponse(progress_of(meta, rows).to_json())


def run_page(request: Request) -> Response:
    run = load_run(config_of(request).store_dir, request.path_params["run_id"])
    query = request.query_params
    category, word, mode = query.get("category", ""), query.get("outcome", ""), query.get("mode", "")
    items: list[dict[str, Any]] = []
    modes: list[str] = []
    if run.result is not None:  # each row: the item's fields (typed values), its outcome word and store key
        items = [{**dict(i), "outcome": outcome(i), "key": item_key(i, run.rows),
                  "passes": item_passes(run.result, i.id)}
                 for i in filtered_items(run.result, category, word, mode)]
        modes = sorted({m for i in run.result.items for m in i.failure_modes})
    results = [r for r in summaries(config_of(request).results) if r.run_id == run.run_id]
    return render(request, "run.html", run=run, items=items, outcomes=OUTCOMES, modes=modes, results=results,
                  categories=list(run.result.categories) if run.result is not None else [],
                  chosen={"category": category, "outcome": word, "mode": mode})


def item_page(request: Request) -> Response:
    run = load_run(config_of(request).store_dir, request.path_params["run_id"])
    key = request.query_params.get("key", "")
    row = next((r for r in run.rows if r.request_key == key), None)
    if row is None:
        raise Refused(404, f"run {run.run_id} has no item '{key}': open it from the run's page")
    scored = next((i for i in (run.result.items if run.result is not None else [])
                   if i.id == row.item_id and i.seed == row.seed), None)
    parts, span, note = segments(row.response or "", scored.loop_span if scored else None)
    with RunStore.open(run.path, readonly=True) as store:
        history = list(store.history(key))
    return render(request, "item.html", run=run, row=row, scored=scored, parts=parts, span=span, span_note=note,
                  word=outcome(scored) if scored else None, history=history)


ROUTES = [
    Route("/", runs_page),
    Route("/runs/{run_id}", run_page),
    Route("/runs/{run_id}/item", item_page),
    Route("/runs/{run_id}/progress.json", progress_json),
]
