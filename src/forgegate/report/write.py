"""Writing the HTML report and the Markdown summary of one result (atomically, only where asked)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from forgegate.errors import UsageError
from forgegate.jsonio import write_bytes_atomic
from forgegate.report.markdown import render_markdown
from forgegate.report.sections import ReportSource


def _html_renderer() -> Any:
    """``render_html``, or a UsageError naming the extra when matplotlib or jinja2 is not installed."""
    try:
        return importlib.import_module("forgegate.report.html").render_html
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in {"matplotlib", "jinja2", "markupsafe"}:
            raise UsageError(f"the HTML report needs {exc.name.split('.')[0]}: pip install 'forgegate[report]'") \
                from None
        raise


def write_reports(result: ReportSource, html: Path | None, markdown: Path | None, *,
                  created: str | None = None) -> None:
    """Write ``html`` and/or ``markdown`` for ``result`` (a typed result, or a result file's JSON); None skips
    that one.

    Both are rendered before either is written, so a bad payload leaves no half-made pair.
    """
    pages: list[tuple[Path, str]] = []
    if html is not None:
        pages.append((Path(html), _html_renderer()(result, created=created)))
    if markdown is not None:
        pages.append((Path(markdown), render_markdown(result)))
    for path, text in pages:
        write_bytes_atomic(path, text.encode("utf-8"))
