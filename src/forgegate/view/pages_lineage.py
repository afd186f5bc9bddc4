"""The lineage files named on the command line: each version as a row, each score over versions as a small chart.

Only the files given to ``forgegate view --lineage`` are served, by their position in that
list: a visitor cannot make the page read another path.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from forgegate.lineage import lineage_rows, read_lineage
from forgegate.view.render import config_of, numbered_file, render
from forgegate.view.svg import sparkline

SIGMA = "sigma_total"


def lineage_list(request: Request) -> Response:
    return render(request, "lineage_list.html", files=[str(p) for p in config_of(request).lineage_files])


def lineage_page(request: Request) -> Response:
    files = config_of(request).lineage_files
    _, path = numbered_file(request, files, "lineage file", "--lineage")
    lineage = read_lineage(path)
    rows = lineage_rows(lineage)
    categories = list(dict.fromkeys(c for row in rows for c in row.record.category_scores))
    marked = [row.record.graduated for row in rows]
    charts: list[dict[str, Any]] = [{"name": SIGMA, "svg": sparkline([r.record.sigma_total for r in rows], marked)}]
    charts += [{"name": c, "svg": sparkline([r.record.category_scores.get(c) for r in rows], marked)}
               for c in categories]
    return render(request, "lineage.html", path=str(path), rows=rows, categories=categories,
                  charts=charts, problems=[str(p) for p in lineage.problems])


ROUTES = [Route("/lineage", lineage_list), Route("/lineage/{index:number}", lineage_page)]
