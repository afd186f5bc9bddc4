"""T_GPT v0.8.1 semantic support and recoverability: formulas, bootstrap, codebook, annotation.

The names below are imported when first used (they pull in numpy, scipy and statsmodels), so that a
light submodule such as ``forgegate.semantic.entailment`` can be imported for the CLI's help text alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.semantic.analysis import MetricsRequest, MetricsTable, compute_metrics
    from forgegate.semantic.bootstrap import BootstrapSettings
    from forgegate.semantic.files import metrics_from_files
    from forgegate.semantic.input_rows import UNMAPPED, AggregateRow, RelevanceRow, SampleRow
    from forgegate.semantic.taskstats import Roles

_HOME: dict[str, str] = {
    "MetricsRequest": "forgegate.semantic.analysis",
    "MetricsTable": "forgegate.semantic.analysis",
    "compute_metrics": "forgegate.semantic.analysis",
    "BootstrapSettings": "forgegate.semantic.bootstrap",
    "metrics_from_files": "forgegate.semantic.files",
    "UNMAPPED": "forgegate.semantic.input_rows",
    "AggregateRow": "forgegate.semantic.input_rows",
    "RelevanceRow": "forgegate.semantic.input_rows",
    "SampleRow": "forgegate.semantic.input_rows",
    "Roles": "forgegate.semantic.taskstats",
}

__all__ = [
    "UNMAPPED",
    "AggregateRow",
    "BootstrapSettings",
    "MetricsRequest",
    "MetricsTable",
    "RelevanceRow",
    "Roles",
    "SampleRow",
    "compute_metrics",
    "metrics_from_files",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
