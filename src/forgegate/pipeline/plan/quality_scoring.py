"""A plan's Q_task / Q_fact: each declared task's answers scored by its scorer (or a person's blinded sheet),
then the per-arm tables with bootstrap CIs (``semantic.quality``); the gate reads them as E1's guardrails.

A ``human-review`` task is scored from a sheet a person fills: ``forgegate semantic quality-sheet PLAN``
(``pipeline.plan.quality_sheet``) writes it from the stored answers, condition-masked and shuffled, with the key
(row -> arm, seed) kept beside the run store where the reviewer does not look. Until every row of the task
carries a score, the measure is INCOMPLETE and says which command writes the sheet.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, ValidationError

from forgegate.checks.quality import QUALITY_SCORERS
from forgegate.core.quality import QUALITY_MEASURES, QualityMeasure
from forgegate.core.records import Completion
from forgegate.errors import InputError, UsageError
from forgegate.jsonio import (
    iter_jsonl_lines,
    parse_json_strict,
    read_bytes_or_input_error,
    read_text_or_input_error,
    validation_to_input_error,
    write_json_atomic,
)
from forgegate.metrics.generations import Generation
from forgegate.plan import LoadedPlan
from forgegate.plan.quality import QualityDeclaration
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.quality import QualityRequest, quality_table
from forgegate.semantic.recurrence import answer_digest
from forgegate.semantic.sheet_reader import one_row_per_key
from forgegate.userfile import UserFileModel

Json = dict[str, Any]
FIELDS: dict[QualityMeasure, str] = {"Q_task": "q_task", "Q_fact": "q_fact"}
"""Each measure's table under ``[instruments.semantic]``."""


class ReviewRow(UserFileModel):
    """One row of a quality review sheet: a blinded answer and the reviewer's score."""

    row: str
    measure: QualityMeasure
    task: str
    prompt: str
    answer: str
    score: float | None = Field(default=None, ge=0, le=1)
    """The reviewer's score: 1 the answer succeeds, 0 it fails (a share in between where the task allows)."""


def declarations(loaded: LoadedPlan) -> dict[QualityMeasure, QualityDeclaration]:
    """The measures the plan's semantic instrument declares (none: empty)."""
    params = loaded.plan.instruments.semantic
    if params is None:
        return {}
    found = {m: getattr(params, FIELDS[m]) for m in QUALITY_MEASURES}
    return {m: d for m, d in found.items() if d is not None}


def check_quality_declarations(loaded: LoadedPlan, task_ids: Sequence[str]) -> None:
    """Each declared task is a fixture task, and Q_task ("defined per task") covers every task."""
    for measure, decl in declarations(loaded).items():
        where = ("instruments", "semantic", FIELDS[measure], "tasks")
        unknown = [t for t in decl.tasks if t not in task_ids]
        if unknown:
            raise loaded.error((*where, unknown[0]), f"no fixture task '{unknown[0]}'",
                               hint=f"the fixture's item ids are the tasks: {', '.join(task_ids)}")
        uncovered = [t for t in task_ids if t not in decl.tasks]
        if measure == "Q_task" and uncovered:
            raise loaded.error(where, f"Q_task is defined per task: task(s) {', '.join(uncovered[:5])} have no "
                               "scorer", hint="add [instruments.semantic.q_task.tasks.<id>] for each fixture task")
    _check_factual_tasks(loaded, task_ids)


def _check_factual_tasks(loaded: LoadedPlan, task_ids: Sequence[str]) -> None:
    """``factual_tasks`` names fixture tasks, and where it is declared Q_fact scores no other task (T_GPT v0.8.1:
    Q_fact is "used only on tasks with externally checkable factual claims")."""
    params = loaded.plan.instruments.semantic
    if params is None or params.factual_tasks is None:
        return
    where = ("instruments", "semantic", "factual_tasks")
    unknown = [t for t in params.factual_tasks if t not in task_ids]
    if unknown:
        raise loaded.error(where, f"no fixture task '{unknown[0]}'",
                           hint=f"the fixture's item ids are the tasks: {', '.join(task_ids)}")
    beyond = [t for t in (params.q_fact.tasks if params.q_fact else {}) if t not in params.factual_tasks]
    if beyond:
        raise loaded.error(("instruments", "semantic", "q_fact", "tasks", beyond[0]), f"Q_fact scores task "
                           f"'{beyond[0]}', which factual_tasks does not list: Q_fact is used only on tasks with "
                           "externally checkable factual claims", hint="list it in factual_tasks, or drop its Q_fact")


def check_declarations_at_lock(loaded: LoadedPlan) -> None:
    """``check_quality_declarations`` against the fixture's tasks, for ``plan lock``: a Q_task that leaves a task
    without a scorer, or a Q_fact naming no fixture task, is refused before the plan freezes, not at ``run``."""
    if not declarations(loaded):
        return
    from forgegate.pipeline.plan.fixture import fixture_items
    from forgegate.plan.inputs import read_inputs
    from forgegate.plan.lock import LockedPlan, current_lock

    contents = read_inputs(loaded)  # the fixture as the lock will hash it
    items = fixture_items(LockedPlan(loaded=loaded, lock=current_lock(loaded, contents), contents=contents))
    check_quality_declarations(loaded, [item.id for item in items])


def sheet_command(loaded: LoadedPlan) -> str:
    """The command that writes the plan's review sheets (named in every INCOMPLETE it causes)."""
    return f"forgegate semantic quality-sheet {loaded.path}"


def key_path(out_dir: Path, sheet: str) -> Path:
    """Where the blinding key of the sheet the plan names as ``sheet`` lives: beside the run store."""
    return out_dir / f"quality-review-key-{hashlib.sha256(sheet.encode('utf-8')).hexdigest()[:12]}.json"


def _completion(gen: Generation) -> Completion:
    return Completion(text=gen.text, tokens=gen.tokens or 0, token_source="tokenizer", finish=gen.finish or "stop",
                      latency_s=0.0)


@dataclass(frozen=True)
class _HumanScores:
    scores: dict[str, list[float]]
    missing: str | None


def review_rows(path: Path, raw: bytes | None = None) -> dict[str, ReviewRow]:
    """The rows of a filled review sheet by their ``row`` id, through the one sheet reader's rule (one row per key,
    both lines named; bounded; UTF-8); each row strictly typed, so ``score: true`` or ``"1"`` is refused at its
    line, not read as 1. ``raw``: the sheet's bytes when the caller read (and hashed) them."""
    raw = read_bytes_or_input_error(path, what="review sheet") if raw is None else raw
    parsed: list[tuple[int, str, ReviewRow]] = []
    scores: dict[str, str] = {}
    for number, obj in iter_jsonl_lines(path, raw):
        try:
            row = ReviewRow.model_validate(obj, strict=True)
        except ValidationError as exc:
            raise validation_to_input_error(path, number, exc) from None
        parsed.append((number, row.row, row))
        scores[str(number)] = "" if row.score is None else str(row.score)
    return {k: row for k, (_, row) in one_row_per_key(path, "row", parsed, label="score", labels=scores).items()}


@dataclass(frozen=True)
class _ReadSheet:
    """A review sheet and its blinding key, each read once per run: the bytes scored are the bytes hashed."""

    raw: bytes | None
    """The filled sheet's bytes; None: no sheet there yet."""
    key: dict[str, Json] | None
    """The key's rows; None: no key beside the run store."""
    rows: dict[str, ReviewRow]


def _read_sheet(loaded: LoadedPlan, out_dir: Path, sheet: str) -> _ReadSheet:
    path, key_file = loaded.resolve(sheet), key_path(out_dir, sheet)
    raw = read_bytes_or_input_error(path, what="review sheet") if path.is_file() else None
    key = (parse_json_strict(read_text_or_input_error(key_file, what="review key"))["rows"] if key_file.is_file()
           else None)
    rows = review_rows(path, raw) if raw is not None and key is not None else {}
    return _ReadSheet(raw, key, rows)


def _human(loaded: LoadedPlan, out_dir: Path, measure: str, task: str, sheet: str,
           read: _ReadSheet) -> _HumanScores:
    """The task's scores from its filled sheet (``read``: the sheet and key as read once), by arm; or why there
    are none yet."""
    path, key_file = loaded.resolve(sheet), key_path(out_dir, sheet)
    if read.raw is None:
        return _HumanScores({}, f"review sheet {sheet} not found")
    if read.key is None:
        return _HumanScores({}, f"no blinding key for {sheet} beside the run store ({key_file})")
    key = read.key
    wanted = {r for r, k in key.items() if k["measure"] == measure and k["task"] == task}
    rows = [row for row in read.rows.values() if row.measure == measure and row.task == task]
    if {r.row for r in rows} != wanted:
        return _HumanScores({}, f"{sheet} holds {len(rows)} rows for this task, its key {len(wanted)}: "
                                "write the sheet again")
    for row in rows:
        digest = key[row.row].get("answer_sha256")
        if digest is not None and answer_digest(row.answer) != digest:
            raise InputError(path, f"row {row.row}'s answer is not the one the review sheet was written with",
                             field="answer", hint="score the answers as written; do not edit them")
    unscored = [r.row for r in rows if r.score is None]
    if unscored:
        return _HumanScores({}, f"{len(unscored)} of {len(rows)} answers in {sheet} have no score yet")
    scores: dict[str, list[float]] = {}
    for row in rows:
        assert row.score is not None
        scores.setdefault(str(key[row.row]["condition"]), []).append(row.score)
    return _HumanScores(scores, None)


def score_quality(loaded: LoadedPlan, generations: Sequence[Generation], prompts: dict[str, str], out_dir: Path,
                  settings: BootstrapSettings) -> Json | None:
    """Per declared measure: the table of ``semantic.quality`` plus the tasks it could not score and the sheets
    it read (with their sha256). None when the plan declares neither measure."""
    decls = declarations(loaded)
    params = loaded.plan.instruments.semantic
    if not decls or params is None:
        return None
    arms = tuple(arm.name for arm in loaded.plan.arms)
    out: Json = {}
    read_once: dict[str, _ReadSheet] = {}  # a sheet named by several tasks or measures is still read once
    for measure, decl in decls.items():
        scores: dict[str, dict[str, list[float]]] = {}
        missing: list[Json] = []
        sheets: dict[str, str | None] = {}
        for task, task_decl in decl.tasks.items():
            scorer = QUALITY_SCORERS.get(str(task_decl.scorer))
            if scorer.human:
                sheet = str(task_decl.sheet)
                if sheet not in read_once:
                    read_once[sheet] = _read_sheet(loaded, out_dir, sheet)
                read = read_once[sheet]
                human = _human(loaded, out_dir, measure, task, sheet, read)
                sheets[sheet] = None if read.raw is None else hashlib.sha256(read.raw).hexdigest()
                if human.missing is not None:
                    missing.append({"task": task, "why": human.missing, "command": sheet_command(loaded)})
                    continue
                scores[task] = human.scores
                continue
            by_arm: dict[str, list[float]] = {}
            for gen in generations:
                if gen.item == task:
                    by_arm.setdefault(gen.arm, []).append(scorer.score(task_decl, prompts[task], _completion(gen)))
            scores[task] = by_arm
        table = quality_table(QualityRequest(measure, scores, arms, params.reference, params.contracted, settings,
                                             decl.margin, decl.scorer_names()))
        out[measure] = {**table, "missing": missing, "sheets": sheets}
    return out


def write_review_sheets(loaded: LoadedPlan, generations: Sequence[Generation], prompts: dict[str, str],
                        out_dir: Path, seed: int) -> list[Path]:
    """Every declared human-review sheet, blinded (no arm, no seed; rows shuffled by ``seed``), its key beside the
    run store. A sheet that exists already is not overwritten (it may hold a reviewer's scores)."""
    by_sheet: dict[str, list[tuple[QualityMeasure, str]]] = {}
    for measure, decl in declarations(loaded).items():
        for task, task_decl in decl.tasks.items():
            if QUALITY_SCORERS.get(str(task_decl.scorer)).human:
                by_sheet.setdefault(str(task_decl.sheet), []).append((measure, task))
    if not by_sheet:
        raise UsageError("the plan declares no human-review scorer: no review sheet to write")
    written: list[Path] = []
    for sheet, pairs in sorted(by_sheet.items()):
        path = loaded.resolve(sheet)
        if path.exists():
            raise UsageError(f"{path} exists (it may hold a reviewer's scores): move it away to write it again")
        entries: list[tuple[QualityMeasure, str, Generation]] = [
            (m, t, g) for m, t in pairs for g in generations if g.item == t]
        if not entries:
            raise UsageError(f"no stored answer for the task(s) of {sheet}: run the plan first (forgegate run "
                             f"{loaded.path})")
        order = np.random.default_rng([seed, len(entries)]).permutation(len(entries))
        rows: list[Json] = []
        key: dict[str, Json] = {}
        for number, index in enumerate(order, start=1):
            measure, task, gen = entries[int(index)]
            row_id = f"r{number:04d}"
            rows.append(ReviewRow(row=row_id, measure=measure, task=task, prompt=prompts[task],
                                  answer=gen.text).model_dump(mode="json"))
            key[row_id] = {"measure": measure, "task": task, "condition": gen.arm, "sample": gen.seed,
                           "answer_sha256": answer_digest(gen.text)}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        write_json_atomic(key_path(out_dir, sheet), {"sheet": sheet, "rows": key})
        written.append(path)
    return written

