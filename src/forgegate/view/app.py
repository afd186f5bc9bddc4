"""The view's ASGI app: routes, static files, error pages, the guard around it all."""

from __future__ import annotations

import sqlite3

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from forgegate.errors import ForgegateError
from forgegate.report.templates import CSS
from forgegate.view.render import HERE, ViewConfig, render
from forgegate.view.security import HEADERS, Guard, Refused

__all__ = ["ViewConfig", "create_app"]

VIEW_CSS = """
nav { background: #263238; padding: 8px 28px; } nav a { color: #eceff1; margin-right: 18px; text-decoration: none; }
nav a:hover { text-decoration: underline; }
form.filters { display: flex; gap: 12px; align-items: end; flex-wrap: wrap; margin: 8px 0; }
form.filters label, form.decide label { font-size: 13px; color: var(--muted); display: block; }
form.decide input { display: block; margin-top: 2px; } section.review { border-left-color: var(--incomplete); }
form.decide { display: flex; gap: 10px; align-items: end; flex-wrap: wrap; margin: 6px 0 18px; }
.error { background: #ffebee; border: 1px solid #ef9a9a; padding: 8px 12px; border-radius: 6px; }
.ok { background: #e8f5e9; border: 1px solid #a5d6a7; padding: 8px 12px; border-radius: 6px; }
.tok { border-right: 1px solid #90a4ae; } .side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.o-pass { color: #2e7d32; font-weight: 600; } .o-fail { color: #c62828; font-weight: 600; }
.o-pending, .o-error { color: #6a1b9a; font-weight: 600; }
"""


def _error_page(request: Request, status: int, message: str) -> HTMLResponse:
    return render(request, "error.html", status=status, status_code=status, message=message)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return _error_page(request, exc.status, exc.message)


async def _forgegate_error(request: Request, exc: Exception) -> Response:
    return _error_page(request, 400, str(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error_page(request, exc.status_code, str(exc.detail))


async def _store_error(request: Request, exc: Exception) -> Response:
    return _error_page(request, 400, f"the run store could not be read ({type(exc).__name__}: {exc}): a run file "
                                     "is damaged; move it out of the store folder")


async def _bug(request: Request, exc: Exception) -> Response:
    """Anything unexpected is a bug in forgegate: say so on a page (still under the page's headers)."""
    page = _error_page(request, 500, f"a bug in forgegate ({type(exc).__name__}: {exc}); please report it with "
                                     "the page's address")
    page.headers.update(HEADERS)
    return page


def _static(name: str, media_type: str) -> Route:
    body = (CSS + VIEW_CSS) if name == "view.css" else (HERE / "static" / name).read_text(encoding="utf-8")

    async def serve(request: Request) -> Response:
        return Response(body, media_type=media_type)

    return Route(f"/static/{name}", serve)


def create_app(config: ViewConfig) -> Starlette:
    """The app over ``config.store_dir``; serve it with uvicorn (``forgegate.view.serve``) or a test client."""
    from forgegate.view import pages_compare, pages_lineage, pages_results, pages_review, pages_runs, pages_sheets

    pages = (pages_runs, pages_review, pages_compare, pages_lineage, pages_sheets, pages_results)
    routes = [*(route for page in pages for route in page.ROUTES),
              _static("view.js", "text/javascript"), _static("view.css", "text/css")]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, token=config.token, allowed_hosts=config.allowed_hosts)],
        exception_handlers={Refused: _refused, ForgegateError: _forgegate_error, HTTPException: _http_error,
                            sqlite3.Error: _store_error, Exception: _bug},
    )
    app.state.config = config
    return app
