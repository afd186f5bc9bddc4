"""E4_R_META: the blinded structural-recurrence sheet, and the rate difference between two arms with its interval.

T_GPT v0.8.1: "E4_R_META": "difference in blinded structural-recurrence rate between structural-critique
and style-control arms". ``recurrence_sheet`` writes every generation of the two arms, shuffled, showing
only the task's question and the answer (no arm, no seed, no count) with ``recurs`` blank, and a key
(row -> task, arm, sample, the answer's sha256). ``score_recurrence`` reads the filled sheet back against
the key: the share of answers marked 1 per arm, the difference structural - style control and the
ratio, each with a seeded percentile interval of a two-level bootstrap: tasks, then generations within
each task ("For claims generalized across a task family, task is the upper-level unit ... samples within
one task are not independent replications of the general phenomenon"; "Always report absolute difference
and ratio where defined").
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from forgegate.core.experiments import RECURRENCE_ENDPOINT
from forgegate.errors import InputError
from forgegate.jsonio import read_bytes_or_input_error, write_bytes_atomic
from forgegate.semantic.bootstrap import (
    TWO_LEVEL_UNIT,
    BootstrapSettings,
    intervals,
    percentile_result,
    resample_tasks_then_samples,
    two_level_library,
)
from forgegate.semantic.codebook import TextSample
from forgegate.semantic.human_validation import LABELS
from forgegate.semantic.sheet_reader import read_keyed_sheet
from forgegate.semantic.sheets import sheet_csv

SHEET_COLUMNS = ("row", "task", "question", "answer", "recurs")
KEY_COLUMNS = ("row", "task", "arm", "sample", "answer_sha256")


def answer_digest(text: str) -> str:
    """sha256 of an answer as a sheet holds it (line endings normalised, stripped): ties a filled row to its key."""
    return hashlib.sha256(text.replace("\r\n", "\n").strip().encode("utf-8")).hexdigest()


def recurrence_sheet(samples: list[TextSample], questions: dict[str, str], arms: tuple[str, str], sheet: Path,
                     key: Path, seed: int) -> int:
    """Write the blank blinded sheet and its key for every generation of ``arms``; the same inputs give the same
    files (the shuffle is seeded), so re-running rewrites them identically. Returns the number of rows."""
    chosen = sorted((s for s in samples if s.condition in arms), key=lambda s: (s.task, s.condition, str(s.sample)))
    order = np.random.default_rng(seed).permutation(len(chosen))
    sheet_rows_out: list[dict[str, object]] = []
    key_rows: list[dict[str, object]] = []
    for row, idx in enumerate(order, start=1):
        s = chosen[int(idx)]
        sheet_rows_out.append({"row": row, "task": s.task, "question": questions.get(s.task, ""), "answer": s.text,
                               "recurs": ""})
        key_rows.append({"row": row, "task": s.task, "arm": s.condition, "sample": str(s.sample),
                         "answer_sha256": answer_digest(s.text)})
    write_bytes_atomic(sheet, sheet_csv(SHEET_COLUMNS, sheet_rows_out))
    write_bytes_atomic(key, sheet_csv(KEY_COLUMNS, key_rows))
    return len(chosen)


Labels = dict[str, dict[str, list[int]]]
"""arm -> task -> the 0/1 labels of that arm's answers on that task."""


def _labels(filled: Path, key: Path) -> tuple[Labels, list[str], int]:
    """Per arm and task the 0/1 labels (one per key row), the key rows still blank or absent, and the key's row
    count; a foreign row, a repeated row or an edited answer is an InputError at its line."""
    key_rows = read_keyed_sheet(key, KEY_COLUMNS, "row", what="key").rows
    if not key_rows:
        raise InputError(key, "the key has no rows: there is nothing to score", line=2,
                         hint="score the key forgegate wrote beside the recurrence sheet")
    arms_of = {row_id: (row["arm"], row["answer_sha256"], row["task"]) for row_id, (_, row) in key_rows.items()}
    sheet = read_keyed_sheet(filled, SHEET_COLUMNS, "row", label="recurs")
    for row_id, (line, row) in sheet.rows.items():
        if row_id not in arms_of:
            raise InputError(filled, f"row {row_id!r} is not in the key {key}", line=line, field="row",
                             hint="fill the recurrence_sheet.csv this run wrote, and keep its rows")
        if answer_digest(row["answer"]) != arms_of[row_id][1]:
            raise InputError(filled, f"row {row_id}'s answer is not the one this run's sheet holds there",
                             line=line, field="answer", hint="fill the sheet without editing, adding or "
                                                             "reordering its answers")
        value = row["recurs"].strip()
        if value and value not in LABELS:
            raise InputError(filled, f"recurs {value!r} is not 0 or 1", line=line, field="recurs",
                             hint="1: the answer shows the structural recurrence; 0: it does not; blank: not yet")
    order = list(sheet.rows) + sorted((r for r in arms_of if r not in sheet.rows),
                                      key=lambda r: int(r) if r.isdigit() else 0)
    labelled, blank = sheet.coverage(order, "recurs")
    labels: Labels = {}
    for row_id in labelled:
        arm, _, task = arms_of[row_id]
        labels.setdefault(arm, {}).setdefault(task, []).append(LABELS[sheet.rows[row_id][1]["recurs"].strip()])
    return labels, blank, len(arms_of)


def _statistic(rates: NDArray[np.float64]) -> NDArray[np.float64]:
    """(structural rate, style-control rate) rows -> difference, ratio (NaN where the control's rate is 0), both."""
    first, second = np.atleast_2d(rates)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(second > 0, first / np.where(second > 0, second, 1.0), np.nan)
    return np.vstack([first - second, ratio, first, second])


def score_recurrence(filled: Path, key: Path, structural: str, style_control: str,
                     settings: BootstrapSettings) -> dict[str, Any]:
    """Rates, difference (structural - style control) and ratio with intervals; ``complete`` False while a row is
    blank (then no number is given: a missing answer is never counted as 0)."""
    labels, blank, rows = _labels(filled, key)
    out: dict[str, Any] = {"experiment": "E4_R_META", "endpoint": RECURRENCE_ENDPOINT, "structural": structural,
                           "style_control": style_control, "sheet": str(filled),
                           "sheet_sha256": hashlib.sha256(read_bytes_or_input_error(filled, what="sheet")).hexdigest(),
                           "key": str(key),
                           "rows": rows, "unlabelled_rows": blank, "complete": not blank,
                           "bootstrap": settings.record() | {"library": two_level_library(),
                                                             "unit": TWO_LEVEL_UNIT}}
    compared = (structural, style_control)
    arms = [np.asarray([x for t in labels.get(a, {}).values() for x in t], dtype=np.int64) for a in compared]
    if blank or any(len(a) == 0 for a in arms):
        out |= {"rates": None, "difference": None, "ratio": None}
        return out
    tasks = sorted({t for a in compared for t in labels.get(a, {})})
    out["tasks"] = len(tasks)
    per_task = [[np.asarray(labels.get(a, {}).get(t, []), dtype=np.int64) for a in compared] for t in tasks]
    point = _statistic(np.array([[a.mean()] for a in arms]))[:, 0]
    rates = resample_tasks_then_samples(per_task, settings, settings.rng_for("E4_R_META"))
    cis = ([None] * 4 if rates is None
           else [i.as_list() for i in intervals(percentile_result(_statistic(rates), settings.confidence_level),
                                                settings.confidence_level)])

    def entry(k: int) -> dict[str, Any]:
        return {"value": None if np.isnan(point[k]) else float(point[k]), "ci": cis[k] if not np.isnan(point[k])
                else None}

    out["rates"] = {arm: entry(k) | {"n": int(a.size), "recurring": int(a.sum())}
                    for k, (arm, a) in enumerate(zip((structural, style_control), arms, strict=True), start=2)}
    out["difference"] = entry(0)
    out["ratio"] = entry(1) | ({} if point[1] == point[1] else {"note": "NA: the style-control rate is 0"})
    return out
