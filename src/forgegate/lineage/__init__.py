"""Lineage: the graduation record across model versions, and paired regression checks between runs.

The names below are imported when first used (the paired statistics pull in numpy, scipy and statsmodels),
so that a light submodule such as ``forgegate.lineage.marks`` serves a server eval without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.lineage.compare import (
        OVERALL,
        CategoryComparison,
        NotComparableError,
        Regression,
        RunComparison,
        comparability_problems,
        compare_runs,
    )
    from forgegate.lineage.graduation import GraduationDecision, decide_graduation
    from forgegate.lineage.record import Lineage, LineProblem, append_record, read_lineage
    from forgegate.lineage.render_compare import comparison_table, print_comparison
    from forgegate.lineage.render_lineage import LineageRow, lineage_markdown, lineage_rows, lineage_table
    from forgegate.lineage.run_scores import ResultItem, RunScores, load_run_scores, parse_run_scores
    from forgegate.lineage.stats import (
        McNemarResult,
        PairedDifference,
        holm_adjust,
        mcnemar_exact,
        paired_bootstrap_difference,
    )
    from forgegate.results.lineage_record import AcceptedRegression, LineageRecord, RecordedItem

_HOME: dict[str, str] = {
    "OVERALL": "forgegate.lineage.compare",
    "CategoryComparison": "forgegate.lineage.compare",
    "NotComparableError": "forgegate.lineage.compare",
    "Regression": "forgegate.lineage.compare",
    "RunComparison": "forgegate.lineage.compare",
    "comparability_problems": "forgegate.lineage.compare",
    "compare_runs": "forgegate.lineage.compare",
    "GraduationDecision": "forgegate.lineage.graduation",
    "decide_graduation": "forgegate.lineage.graduation",
    "Lineage": "forgegate.lineage.record",
    "LineProblem": "forgegate.lineage.record",
    "append_record": "forgegate.lineage.record",
    "read_lineage": "forgegate.lineage.record",
    "comparison_table": "forgegate.lineage.render_compare",
    "print_comparison": "forgegate.lineage.render_compare",
    "LineageRow": "forgegate.lineage.render_lineage",
    "lineage_markdown": "forgegate.lineage.render_lineage",
    "lineage_rows": "forgegate.lineage.render_lineage",
    "lineage_table": "forgegate.lineage.render_lineage",
    "ResultItem": "forgegate.lineage.run_scores",
    "RunScores": "forgegate.lineage.run_scores",
    "load_run_scores": "forgegate.lineage.run_scores",
    "parse_run_scores": "forgegate.lineage.run_scores",
    "McNemarResult": "forgegate.lineage.stats",
    "PairedDifference": "forgegate.lineage.stats",
    "holm_adjust": "forgegate.lineage.stats",
    "mcnemar_exact": "forgegate.lineage.stats",
    "paired_bootstrap_difference": "forgegate.lineage.stats",
}

__all__ = [
    "OVERALL",
    "AcceptedRegression",
    "CategoryComparison",
    "RunComparison",
    "GraduationDecision",
    "RecordedItem",
    "LineProblem",
    "Lineage",
    "LineageRecord",
    "LineageRow",
    "McNemarResult",
    "NotComparableError",
    "PairedDifference",
    "Regression",
    "ResultItem",
    "RunScores",
    "append_record",
    "comparability_problems",
    "compare_runs",
    "comparison_table",
    "decide_graduation",
    "holm_adjust",
    "lineage_markdown",
    "lineage_rows",
    "lineage_table",
    "load_run_scores",
    "mcnemar_exact",
    "paired_bootstrap_difference",
    "parse_run_scores",
    "print_comparison",
    "read_lineage",
]


_RECORDS = frozenset({"AcceptedRegression", "LineageRecord", "RecordedItem"})
"""The records' own models (in ``forgegate.results``): no numpy, but pydantic models that a server eval, which
imports ``lineage.marks``, does not build (issue 45)."""


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    if name in _RECORDS:
        import forgegate.results

        return getattr(forgegate.results, name)
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
