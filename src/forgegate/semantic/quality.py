"""Q_task / Q_fact per task and condition, across tasks, and the stage change, each with a percentile bootstrap CI.

T_GPT v0.8.1's ``uncertainty``: within a task, the bootstrap resamples the independent generations
(each answer's 0-1 score); across tasks, the task is the upper-level unit (the mean of per-task
means, tasks resampled). The stage change is contracted minus reference: across tasks on the tasks
paired, within a lone task on the two conditions' generations resampled independently. The scores
come in already scored (``checks.quality`` or a human's sheet); nothing here knows a plan.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from forgegate.core.quality import SPEC_QUALITY
from forgegate.semantic.bootstrap import METHOD, BootstrapSettings, intervals, resample_units, unit_means

Json = dict[str, Any]
Scores = Mapping[str, Mapping[str, Sequence[float]]]
"""task -> condition -> the scores of that condition's answers to that task (0 to 1)."""


@dataclass(frozen=True)
class QualityRequest:
    """One measure's scores and what the table reports about them."""

    measure: str
    scores: Scores
    conditions: tuple[str, ...]
    reference: str
    contracted: str
    settings: BootstrapSettings
    margin: float | None
    scorers: Mapping[str, str]


def _mean_ci(values: Sequence[float], settings: BootstrapSettings, unit: str) -> Json:
    """Mean with its percentile CI over ``values`` as units (None with fewer than two)."""
    array = np.asarray(values, dtype=np.float64).reshape(-1, 1)
    if array.size == 0:
        return {"value": None, "ci": None, "n": 0}
    point = float(unit_means(array)[0])
    boot = resample_units(array, settings, settings.rng_for(unit))
    ci = None if boot is None else intervals(boot, settings.confidence_level)[0].as_list()
    return {"value": point, "ci": ci, "n": int(array.shape[0])}


def _difference_ci(reference: Sequence[float], contracted: Sequence[float], settings: BootstrapSettings,
                   unit: str) -> list[float] | None:
    """CI of mean(contracted) - mean(reference), the two conditions' answers resampled independently."""
    a, b = np.asarray(reference, dtype=np.float64), np.asarray(contracted, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return None

    def diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(np.mean(y, axis=axis) - np.mean(x, axis=axis))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap((a, b), diff, n_resamples=settings.n_resamples, vectorized=True, paired=False,
                                 method=METHOD, confidence_level=settings.confidence_level,
                                 rng=settings.rng_for(unit))
    return [float(result.confidence_interval.low), float(result.confidence_interval.high)]


def _change(request: QualityRequest, per_task: Mapping[str, Mapping[str, Json]]) -> Json:
    """Contracted minus reference across tasks (tasks with both), with its CI and the loss beside the margin."""
    ref, con = request.reference, request.contracted
    tasks = [t for t, conds in per_task.items()
             if conds.get(ref, {}).get("value") is not None and conds.get(con, {}).get("value") is not None]
    out: Json = {"reference": ref, "contracted": con, "n_tasks": len(tasks), "value": None, "ci": None,
                 "loss": None}
    if not tasks:
        out["note"] = f"no task has scored answers in both {ref} and {con}"
        return out
    diffs = [per_task[t][con]["value"] - per_task[t][ref]["value"] for t in tasks]
    if len(tasks) == 1:
        task = tasks[0]
        ci = _difference_ci(request.scores[task][ref], request.scores[task][con], request.settings,
                            f"{request.measure}:{task}:change")
        unit = "generations of the one task, each condition resampled independently"
    else:
        ci = _mean_ci(diffs, request.settings, f"{request.measure}:across:change")["ci"]
        unit = "tasks (paired: each task's contracted minus reference)"
    value = float(np.mean(diffs))
    out.update(value=value, ci=ci, loss=-value, bootstrap_unit=unit)
    return out


def quality_table(request: QualityRequest) -> Json:
    """The measure's table: per task and condition, across tasks per condition, and the stage change."""
    per_task: dict[str, dict[str, Json]] = {}
    for task in sorted(request.scores):
        per_task[task] = {c: _mean_ci(request.scores[task].get(c, ()), request.settings,
                                      f"{request.measure}:{task}:{c}")
                          for c in request.conditions}
    across: dict[str, Json] = {}
    for cond in request.conditions:
        means = [row[cond]["value"] for row in per_task.values() if row[cond]["value"] is not None]
        entry = _mean_ci(means, request.settings, f"{request.measure}:across:{cond}")
        across[cond] = {"value": entry["value"], "ci": entry["ci"], "n_tasks": entry["n"]}
    return {"measure": request.measure, "spec": SPEC_QUALITY[request.measure], "scorers": dict(request.scorers),
            "margin": request.margin, "tasks": per_task, "across_tasks": across,
            "change": _change(request, per_task)}
