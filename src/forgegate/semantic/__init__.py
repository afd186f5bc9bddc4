"""T_GPT v0.8.1 semantic support and recoverability: formulas, bootstrap, codebook, annotation."""

from forgegate.semantic.analysis import MetricsRequest, compute_metrics
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.files import metrics_from_files
from forgegate.semantic.schema import UNMAPPED, AggregateRow, RelevanceRow, SampleRow
from forgegate.semantic.taskstats import Roles

__all__ = [
    "UNMAPPED",
    "AggregateRow",
    "BootstrapSettings",
    "MetricsRequest",
    "RelevanceRow",
    "Roles",
    "SampleRow",
    "compute_metrics",
    "metrics_from_files",
]
