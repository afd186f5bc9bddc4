"""httpx, imported without its command-line client: the one way forgegate's backends import it.

``httpx/__init__`` imports ``httpx._main`` (the ``httpx`` console command) whenever click, rich and pygments are
installed, as they are beside typer: rich's progress bars and tables and pygments' lexers, about 40 ms of CPU, a
fourteenth of a stored one-item eval (issue 45), for a command forgegate never runs. While httpx is first imported,
``httpx._main`` is a module without ``main``, so httpx takes its own fallback for a missing CLI; the stand-in is
removed at once, and a later ``import httpx._main`` loads the real one.
"""

from __future__ import annotations

import sys
import types


def _import_without_cli() -> None:
    if "httpx" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main")
    sys.modules["httpx._main"] = stand_in
    try:
        import httpx  # noqa: F401
    finally:
        if sys.modules.get("httpx._main") is stand_in:
            del sys.modules["httpx._main"]


_import_without_cli()

import httpx  # noqa: E402

__all__ = ["httpx"]
