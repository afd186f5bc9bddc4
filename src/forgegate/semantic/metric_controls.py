"""Positive and negative controls of the metric path, run with every metrics table."""

from __future__ import annotations

import math

from forgegate.semantic.taskstats import Roles, TaskData, TaskStatistic, Variant

_ROLES = Roles("A", "B", "R")


def _pair_metrics(conds: dict[str, list[str]], minimum_count: int, tau: float) -> dict[str, float]:
    data = TaskData.build("control", conds)
    relevance = dict.fromkeys(data.clusters, 1)
    stat = TaskStatistic(data, ("A", "B", "R"), (Variant(tau, True),), relevance, _ROLES, minimum_count)
    point = stat.point()
    return {name[2]: float(point[i]) for i, name in enumerate(stat.names) if name[1] == "pair"}


def _close(observed: float, expected: float | None) -> bool:
    if expected is None:
        return math.isnan(observed)
    return not math.isnan(observed) and abs(observed - expected) < 1e-12


def run_controls(minimum_count: int, tau: float) -> list[dict[str, object]]:
    """A known loss must read as that loss, and no loss must read as ES_LOSS 0 with REC_GAIN NA."""
    wide = ["c1"] * 50 + ["c2"] * 30 + ["c3"] * 20
    contracted = ["c1"] * 70 + ["c2"] * 30
    positive = _pair_metrics({"A": wide, "B": contracted, "R": wide}, minimum_count, tau)
    negative = _pair_metrics({"A": wide, "B": wide, "R": wide}, minimum_count, tau)
    checks = [
        ("positive: c3 (p_A 0.2) lost in B", positive["ES_LOSS"], 0.2),
        ("positive: c3 back under recovery", positive["REC_GAIN"], 1.0),
        ("negative: B equals A", negative["ES_LOSS"], 0.0),
        ("negative: REC_GAIN NA without loss", negative["REC_GAIN"], None),
    ]
    return [{"name": name, "expected": "NA" if exp is None else exp,
             "observed": "NA" if math.isnan(obs) else obs, "passed": _close(obs, exp)}
            for name, obs, exp in checks]
