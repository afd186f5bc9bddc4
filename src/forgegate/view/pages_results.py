"""Result files (a plan's three-axis comparison, T_GPT metrics with CIs, any eval) and a run's full report,
rendered by ``forgegate.report`` exactly as ``forgegate report`` writes them.

The report is a self-contained page with inline CSS and SVG and no script; it is served
under its own Content-Security-Policy, which allows inline styles and still no script and
no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from forgegate.errors import ForgegateError
from forgegate.report.sections import ReportSource
from forgegate.results.read import read_result_json
from forgegate.view.render import config_of, numbered_file, render
from forgegate.view.scored import load_run
from forgegate.view.security import REPORT_CSP, Refused


def _report(result: ReportSource, created: str | None, source: str) -> Response:
    from forgegate.report import render_html

    html = render_html(result, created=created, source=source)
    return HTMLResponse(html, headers={"Content-Security-Policy": REPORT_CSP})


@dataclass(frozen=True)
class ResultFileSummary:
    """One ``--result`` file as the results list shows it: its kind, run and word, or why it could not be read."""

    index: int
    path: str
    kind: str
    run_id: str
    gate: str
    problem: str | None


def summaries(files: tuple[Path, ...]) -> list[ResultFileSummary]:
    out = []
    for index, path in enumerate(files):
        try:
            result = read_result_json(path).result
            run_id, gate = getattr(result, "run_id", None), getattr(result, "gate", None)  # not every kind has them
            out.append(ResultFileSummary(index, str(path), result.kind, str(run_id or "-"), str(gate or "-"), None))
        except ForgegateError as exc:
            out.append(ResultFileSummary(index, str(path), "-", "-", "-", str(exc)))
    return out


def results_list(request: Request) -> Response:
    return render(request, "results.html", results=summaries(config_of(request).results))


def result_page(request: Request) -> Response:
    files = config_of(request).results
    _, path = numbered_file(request, files, "result", "--result")
    read = read_result_json(path)
    return _report(read.result, read.created, read.source)


def run_report(request: Request) -> Response:
    run = load_run(config_of(request).store_dir, request.path_params["run_id"])
    if run.result is None:
        raise Refused(400, str(run.not_scored))
    return _report(run.result, run.meta.created, run.run_id)


ROUTES = [Route("/results", results_list), Route("/results/{index:number}", result_page),
          Route("/runs/{run_id}/report", run_report)]
