"""The adjudicated relevance record: R(c) per cluster with who annotated, who adjudicated, when, and kappa.

T_GPT v0.8.1 defines R(c) as "Binary adjudicated relevance of frozen cluster c to the task, based on
condition-masked double annotation under the frozen codebook", with
``author_primary_annotation_forbidden: true``. A bare ``{cluster, relevant}`` file says none of
that, so ``forgegate semantic relevance`` writes this record and a confirmatory plan requires it.

The record is JSONL so that every error names its line: line 1 is the provenance
(:class:`RecordHeader`), every further line one cluster (:class:`RecordRow`). The loader checks
what it can recompute: two different annotators, neither the plan's author; each row's decision
consistent with the two labels; the stored agreement and Cohen's kappa equal to the labels'.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from forgegate.core.names import same_person
from forgegate.errors import InputError, UsageError
from forgegate.jsonio import (
    iter_jsonl_lines,
    read_bytes_or_input_error,
    validation_to_input_error,
    write_bytes_atomic,
)
from forgegate.semantic.agreement import cohens_kappa
from forgegate.semantic.input_rows import UNMAPPED, read_relevance
from forgegate.semantic.relevance import Annotation, author_problem, read_labels

RECORD_FORMAT = "forgegate-adjudicated-relevance/1"
"""The ``format`` of line 1 of an adjudicated relevance record (a bare R(c) file has no header line)."""
SHEETS_COMMAND = "forgegate semantic sheets --codebook CODEBOOK.json --out DIR"
"""The command that makes the condition-masked relevance sheet two annotators fill (named in refusals)."""
ADJUDICATE_COMMAND = ("forgegate semantic relevance --first NAME=SHEET.csv --second NAME=SHEET.csv "
                      "--author PLAN_AUTHOR --adjudicator NAME --adjudication ADJ.csv "
                      "--out relevance.adjudicated.jsonl")
"""The command that turns two filled sheets and the adjudication into the record."""
_TOLERANCE = 1e-9


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True)


class Annotator(_Strict):
    """One primary annotator: their name and the filled sheet the labels came from."""

    name: str = Field(min_length=1)
    """The annotator's name (never the plan's author)."""
    sheet: str = Field(min_length=1)
    """The filled relevance sheet, as given to ``semantic relevance``."""
    sheet_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the filled sheet's bytes when the record was written."""


class RecordHeader(_Strict):
    """Line 1: the provenance of the adjudicated R(c)."""

    format: Literal["forgegate-adjudicated-relevance/1"]
    """Always ``forgegate-adjudicated-relevance/1``."""
    codebook_hash: str | None = None
    """Content hash of the frozen codebook the sheet was made from (checked against the plan's); null: not given."""
    plan_author: str = Field(min_length=1)
    """The plan's author: refused as a primary annotator (T_GPT: author_primary_annotation_forbidden)."""
    annotators: tuple[Annotator, Annotator]
    """The two primary annotators, in the order of ``--first`` and ``--second``."""
    adjudicator: str = Field(min_length=1)
    """Who decided the disagreements (may be the plan's author)."""
    adjudicated_at: AwareDatetime
    """When the record was written (ISO 8601 with its UTC offset)."""
    clusters: int = Field(gt=0)
    """How many clusters both annotators labelled (the rows below)."""
    observed_agreement: float = Field(ge=0, le=1)
    """Share of clusters the two annotators labelled alike."""
    cohens_kappa: float | None
    """Cohen's kappa between the two annotators; null when chance agreement is 1 (one label used by both)."""
    disagreements: int = Field(ge=0)
    """How many clusters the adjudicator decided."""


class RecordRow(_Strict):
    """One cluster: both annotators' labels and the final R(c)."""

    cluster: str = Field(min_length=1)
    first: Literal[0, 1]
    second: Literal[0, 1]
    relevant: Literal[0, 1]
    """R(c): the shared label where the annotators agreed, the adjudicator's decision where they did not."""
    decision: Literal["agreed", "adjudicated"]


@dataclass(frozen=True)
class RelevanceRecord:
    """A loaded, checked record: the labels and the provenance a result carries."""

    path: Path
    header: RecordHeader
    rows: tuple[RecordRow, ...]

    @property
    def labels(self) -> dict[str, int]:
        return {r.cluster: int(r.relevant) for r in self.rows}

    def provenance(self) -> dict[str, Any]:
        """What a result shows: who annotated, who adjudicated, when, and the agreement."""
        h = self.header
        return {"adjudicated": True, "annotators": [a.name for a in h.annotators], "plan_author": h.plan_author,
                "adjudicator": h.adjudicator, "adjudicated_at": h.adjudicated_at.isoformat(),
                "observed_agreement": h.observed_agreement, "cohens_kappa": h.cohens_kappa,
                "disagreements": h.disagreements, "codebook_hash": h.codebook_hash}


@dataclass(frozen=True)
class RelevanceInput:
    """R(c) as a plan or ``semantic metrics`` reads it: the labels, and the record when the file is one."""

    labels: dict[str, int]
    record: RelevanceRecord | None


def _validate(path: Path, line: int, model: type[_Strict], obj: dict[str, Any]) -> Any:
    """Strict JSON-mode validation: ``"1"`` is not 1, a list is a pair, an ISO string is a timestamp."""
    try:
        return model.model_validate_json(json.dumps(obj), strict=True)
    except ValidationError as exc:
        raise validation_to_input_error(path, line, exc, fields=tuple(model.model_fields)) from None


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0, abs_tol=_TOLERANCE)


def _check_people(path: Path, header: RecordHeader) -> None:
    first, second = header.annotators
    for index, ann in enumerate(header.annotators):
        problem = author_problem(ann.name, header.plan_author)
        if problem is not None:
            raise InputError(path, problem, line=1, field=f"annotators.{index}.name",
                             hint=f"two other people fill the sheets ({SHEETS_COMMAND})")
    if same_person(first.name, second.name):
        raise InputError(path, "double annotation needs two different annotators", line=1, field="annotators")


def _check_rows(path: Path, lines: list[tuple[int, RecordRow]]) -> None:
    seen: dict[str, int] = {}
    for line, row in lines:
        if row.cluster == UNMAPPED:
            raise InputError(path, "UNMAPPED is not a cluster and has no relevance", line=line, field="cluster")
        if row.cluster in seen:
            raise InputError(path, f"cluster {row.cluster!r} repeats line {seen[row.cluster]}", line=line,
                             field="cluster")
        seen[row.cluster] = line
        agreed = row.first == row.second
        if agreed and (row.decision != "agreed" or row.relevant != row.first):
            raise InputError(path, f"both annotators said {row.first}: the decision is 'agreed' and relevant is "
                             f"{row.first}", line=line, field="decision" if row.decision != "agreed" else "relevant")
        if not agreed and row.decision != "adjudicated":
            raise InputError(path, "the annotators disagree: the decision is 'adjudicated'", line=line,
                             field="decision", hint="every disagreement is decided by the adjudicator")


def _check_agreement(path: Path, header: RecordHeader, rows: list[RecordRow]) -> None:
    first, second = [int(r.first) for r in rows], [int(r.second) for r in rows]
    recomputed: dict[str, Any] = {
        "clusters": len(rows), "disagreements": sum(a != b for a, b in zip(first, second, strict=True)),
        "observed_agreement": sum(a == b for a, b in zip(first, second, strict=True)) / len(rows),
        "cohens_kappa": cohens_kappa(first, second)}
    for name, value in recomputed.items():
        stored = getattr(header, name)
        if not (_close(stored, value) if isinstance(value, float) or value is None else stored == value):
            raise InputError(path, f"{stored} does not match the labels below (recomputed: {value})", line=1,
                             field=name, hint="the record is written by `forgegate semantic relevance`; "
                                              "do not edit it by hand")


def read_record(path: Path, raw: bytes | None = None) -> RelevanceRecord:
    """Load and check an adjudicated relevance record (errors at file:line:field); from ``raw`` when the caller
    holds the file's bytes."""
    raw = read_bytes_or_input_error(path, what="relevance record") if raw is None else raw
    lines = list(iter_jsonl_lines(path, raw))
    if not lines:
        raise InputError(path, "empty relevance record", hint=f"write it with {ADJUDICATE_COMMAND}")
    number, obj = lines[0]
    header: RecordHeader = _validate(path, number, RecordHeader, obj)
    _check_people(path, header)
    rows: list[tuple[int, RecordRow]] = [(n, _validate(path, n, RecordRow, o)) for n, o in lines[1:]]
    if not rows:
        raise InputError(path, "no cluster rows after the header", line=number)
    _check_rows(path, rows)
    _check_agreement(path, header, [r for _, r in rows])
    return RelevanceRecord(path, header, tuple(r for _, r in rows))


def is_record(path: Path, raw: bytes | None = None) -> bool:
    """True when line 1 of ``path`` (or of ``raw``, its bytes) is a record header (has ``format``); a bare R(c)
    file's rows have none."""
    raw = read_bytes_or_input_error(path, what="relevance file") if raw is None else raw
    for _, obj in iter_jsonl_lines(path, raw):
        return "format" in obj
    return False


def load_relevance(path: Path, raw: bytes | None = None) -> RelevanceInput:
    """A record (checked, with provenance) or a bare ``{cluster, relevant}`` file (labels only). ``raw``: the
    file's bytes as the caller read (and hashed) them; without it the file is read once here."""
    raw = read_bytes_or_input_error(path, what="relevance file") if raw is None else raw
    if is_record(path, raw):
        record = read_record(path, raw)
        return RelevanceInput(record.labels, record)
    return RelevanceInput(read_relevance(path, raw), None)


def record_lines(first: Annotation, second: Annotation, final: dict[str, int], report: dict[str, Any], *,
                 adjudicator: str, codebook_hash: str | None, now: datetime) -> list[dict[str, Any]]:
    """The record of a complete adjudication (``adjudicate``'s ``final`` and ``report``): header, then rows."""
    if not report["complete"]:
        raise UsageError("disagreements are still open: adjudicate them before writing the record")
    if not adjudicator.strip():
        raise UsageError("--adjudicator is required: the record says who decided the disagreements")
    a, b = read_labels(first.path), read_labels(second.path)
    header = {"format": RECORD_FORMAT, "codebook_hash": codebook_hash, "plan_author": report["author"],
              "annotators": [{"name": ann.annotator, "sheet": str(ann.path),
                              "sheet_sha256": hashlib.sha256(
                                  read_bytes_or_input_error(ann.path, what="sheet")).hexdigest()}
                             for ann in (first, second)],
              "adjudicator": adjudicator.strip(), "adjudicated_at": now.isoformat(timespec="seconds"),
              "clusters": report["clusters"], "observed_agreement": report["observed_agreement"],
              "cohens_kappa": report["cohens_kappa"], "disagreements": len(report["disagreements"])}
    rows = [{"cluster": c, "first": a[c], "second": b[c], "relevant": final[c],
             "decision": "agreed" if a[c] == b[c] else "adjudicated"} for c in sorted(final)]
    return [header, *rows]


def write_record(path: Path, lines: list[dict[str, Any]]) -> None:
    """The record as JSONL, written atomically (read back by :func:`read_record`)."""
    write_bytes_atomic(path, "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in lines).encode("utf-8"))
