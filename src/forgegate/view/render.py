"""What every page of the view shares: its configuration and rendering a template (autoescaped)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse

from forgegate.core.verdict import Gate
from forgegate.report.fmt import num, percent
from forgegate.textsafe import visible
from forgegate.view.security import LOOPBACK_NAMES, Refused

HERE = Path(__file__).parent


@dataclass(frozen=True)
class ViewConfig:
    """What the app serves: a run store folder, and the lineage, sheet and result files named on the command line."""

    store_dir: Path
    lineage_files: tuple[Path, ...] = ()
    sheets: tuple[Path, ...] = ()
    """T_GPT sheets (relevance, cluster validation) people fill on the page."""
    results: tuple[Path, ...] = ()
    """Result JSON files (plan runs, T_GPT metrics, evals) shown as their reports."""
    author: str | None = None
    """The plan's author: refused as a primary annotator of a sheet."""
    token: str | None = None
    allowed_hosts: frozenset[str] | None = LOOPBACK_NAMES
    """Host names a request may name (None: any, for a server guarded by a token)."""


def _gate_class(word: object) -> str:
    return f"g-{word}" if str(word) in {g.value for g in Gate} else ""


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(visible=lambda v: visible(str(v)), num=num, percent=percent, gate_class=_gate_class)
    return env


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page: the template with the request's CSRF token, escaped throughout."""
    html = environment().get_template(name).render(csrf=getattr(request.state, "csrf", ""), **context)
    return HTMLResponse(html, status_code=status)


def config_of(request: Request) -> ViewConfig:
    config: ViewConfig = request.app.state.config
    return config




class FileNumber(Convertor[int]):
    """``{index:number}`` in a route: up to 9 digits. Starlette's ``int`` matches any run of digits and
    converts it, so 5,000 of them passed Python's limit and answered 500; this does not match (404)."""

    regex = "[0-9]{1,9}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("number", FileNumber())


def numbered_file(request: Request, files: tuple[Path, ...], what: str, option: str) -> tuple[int, Path]:
    """The file a page's ``{index}`` names among those given on the command line (404 with how to add one)."""
    index = int(request.path_params["index"])
    if not 0 <= index < len(files):
        raise Refused(404, f"no {what} number {index}: `forgegate view {option} FILE` names the {what}s shown")
    return index, files[index]
