"""forgegate: decide whether a trained language-model checkpoint ships.

A pre-registered plan -> generation through a model backend into a durable run store -> instruments
-> a gate -> a report (docs/architecture.md). The Python API::

    import forgegate
    result = forgegate.evaluate(backend="openai", model="qwen", base_urls=["http://127.0.0.1:8000/v1"])
    result.gate            # "PASS", "FAIL", "INCOMPLETE" or "INVALID"

The API's names load on first use, so ``import forgegate`` (and the CLI's start-up) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forgegate.errors import ForgegateError, InputError, UsageError

if TYPE_CHECKING:
    from forgegate.api import compare, evaluate, evaluate_async, run_plan, run_plan_async
    from forgegate.core.version import __version__

_API = ("compare", "evaluate", "evaluate_async", "run_plan", "run_plan_async")

__all__ = ["ForgegateError", "InputError", "UsageError", "__version__", "compare", "evaluate", "evaluate_async",
           "run_plan", "run_plan_async"]


def __getattr__(name: str) -> Any:
    """The API and ``__version__`` load on first use: importing any part of forgegate (the CLI's ``--help``
    first of all) pays for neither the pipeline nor ``importlib.metadata``."""
    if name in _API:
        return getattr(importlib.import_module("forgegate.api"), name)
    if name == "__version__":
        from forgegate.core.version import __version__

        return __version__
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
