"""T_GPT relevance annotation and blinded cluster validation on the page: each annotator by name, the plan's
author refused, agreement (Cohen's kappa) once two have finished, adjudication of the disagreements.

Only the sheets named by ``forgegate view --sheet`` are served, by position; what is written
is the files ``forgegate semantic relevance`` reads (``forgegate.view.sheets``).
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from forgegate.core.names import name_key, name_problem, same_person
from forgegate.errors import UsageError
from forgegate.pipeline.review import MAX_REVIEWER_CHARS
from forgegate.view.render import config_of, numbered_file, render
from forgegate.view.security import Refused, verified_form
from forgegate.view.sheets import (
    ADJ_FIELD,
    RELEVANCE,
    Sheet,
    adjudication_decisions,
    adjudicator_of,
    agreement,
    check_name,
    disagreement_digest,
    load_sheet,
    save_adjudication,
    save_labels,
)


def _sheet(request: Request) -> tuple[int, Sheet]:
    files = config_of(request).sheets
    index, path = numbered_file(request, files, "sheet", "--sheet")
    return index, load_sheet(path)


def sheets_list(request: Request) -> Response:
    sheets = [load_sheet(p) for p in config_of(request).sheets]
    return render(request, "sheets.html", sheets=sheets)


def sheet_page(request: Request, error: str | None = None, status: int = 200) -> Response:
    index, sheet = _sheet(request)
    author = config_of(request).author
    names = sheet.annotators()
    done = {n: sum(v is not None for v in sheet.labels(n).values()) for n in names}
    report = agreement(sheet, author)
    return render(request, "sheet.html", status=status, index=index, sheet=sheet, names=names, done=done,
                  report=report, author=author, error=error, relevance=sheet.kind is RELEVANCE,
                  adjudicator=adjudicator_of(sheet), adj_field=ADJ_FIELD,
                  digest=None if report is None else disagreement_digest(report.disagreements),
                  saved=request.query_params.get("saved"))


def annotate_page(request: Request) -> Response:
    index, sheet = _sheet(request)
    try:
        name = check_name(request.query_params.get("annotator", ""), config_of(request).author, sheet)
    except UsageError as exc:
        raise Refused(403, str(exc)) from None
    return render(request, "annotate.html", index=index, sheet=sheet, annotator=name, labels=sheet.labels(name))


async def annotate_save(request: Request) -> Response:
    fields = await verified_form(request)
    index, sheet = await run_in_threadpool(_sheet, request)
    try:
        name = check_name(fields.get("annotator", ""), config_of(request).author, sheet)
    except UsageError as exc:
        raise Refused(403, str(exc)) from None
    labels: dict[str, int | None] = {}
    for position, row in enumerate(sheet.rows):
        value = fields.get(f"label-{position}")
        labels[row[sheet.kind.key]] = int(value) if value in ("0", "1") else None
    await run_in_threadpool(save_labels, sheet, name, labels)
    return RedirectResponse(f"/sheets/{index}?saved={quote(name)}", status_code=303)


async def adjudicate_save(request: Request) -> Response:
    fields = await verified_form(request)
    index, sheet = await run_in_threadpool(_sheet, request)
    report = await run_in_threadpool(agreement, sheet, config_of(request).author)
    adjudicator = fields.get("adjudicator", "").strip()
    problem = None
    if sheet.kind is not RELEVANCE or report is None:
        problem = "adjudication comes after both annotators have labelled every cluster of a relevance sheet"
    elif not name_key(adjudicator):
        problem = "the adjudicator's name is required"
    elif name_problem(adjudicator, "the adjudicator's name") is not None:
        problem = name_problem(adjudicator, "the adjudicator's name")
    elif len(adjudicator) > MAX_REVIEWER_CHARS:
        problem = f"the adjudicator's name has at most {MAX_REVIEWER_CHARS} characters"
    elif any(same_person(adjudicator, n) for n in report.annotators):
        problem = f"{adjudicator} annotated this sheet and may not adjudicate it"
    if problem:
        return await run_in_threadpool(sheet_page, request, problem, 400)
    assert report is not None
    decisions = adjudication_decisions(fields, report.disagreements)
    if isinstance(decisions, str):
        return await run_in_threadpool(sheet_page, request, decisions, 409 if "reload" in decisions else 400)
    await run_in_threadpool(save_adjudication, sheet, decisions, adjudicator)
    return RedirectResponse(f"/sheets/{index}?saved=the%20adjudication", status_code=303)


ROUTES = [
    Route("/sheets", sheets_list),
    Route("/sheets/{index:number}", sheet_page),
    Route("/sheets/{index:number}/annotate", annotate_page, methods=["GET"]),
    Route("/sheets/{index:number}/annotate", annotate_save, methods=["POST"]),
    Route("/sheets/{index:number}/adjudicate", adjudicate_save, methods=["POST"]),
]
