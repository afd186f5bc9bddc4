"""Lineage: the graduation record across model versions, and paired regression checks between runs."""

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
from forgegate.results import AcceptedRegression, LineageRecord, RecordedItem

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
