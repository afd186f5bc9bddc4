"""Reports of forgegate results: terminal tables, a self-contained HTML page with charts, a Markdown summary.

The HTML report needs the ``report`` extra (matplotlib, jinja2); its names load on first
use, so the terminal printer and the rest of forgegate never import them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.report.html import render_html
    from forgegate.report.markdown import render_markdown
    from forgegate.report.write import write_reports

_LAZY = {
    "render_html": "forgegate.report.html",
    "render_markdown": "forgegate.report.markdown",
    "write_reports": "forgegate.report.write",
}

__all__ = ["render_html", "render_markdown", "write_reports"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'forgegate.report' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
