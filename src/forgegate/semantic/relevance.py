"""Relevance R(c) from double, condition-masked annotation: author refused, kappa, adjudication."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.errors import InputError, UsageError
from forgegate.jsonio import write_bytes_atomic
from forgegate.semantic.agreement import cohens_kappa
from forgegate.textsafe import original_cell, spreadsheet_cell


@dataclass(frozen=True)
class Annotation:
    """One annotator's filled relevance sheet."""

    annotator: str
    path: Path


def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def same_person(first: str, second: str) -> bool:
    """Two names are one person when they differ only in case and spacing."""
    return _norm(first) == _norm(second)


def author_problem(annotator: str, author: str) -> str | None:
    """Why ``annotator`` may not be a primary annotator (T_GPT: author_primary_annotation_forbidden), or None.

    The one rule for the command, the view and the adjudicated record's loader.
    """
    if same_person(annotator, author):
        return (f"{annotator!r} wrote the plan and may not be a primary annotator; "
                "ask two other people to annotate (the author may adjudicate)")
    return None


def check_annotator(annotator: str, author: str) -> None:
    """Refuse the plan's author (compared by name, case and spacing ignored) as a primary annotator."""
    if not author.strip():
        raise UsageError("--author is required: the plan's author may not be a primary annotator")
    problem = author_problem(annotator, author)
    if problem is not None:
        raise UsageError(problem)


def read_labels(path: Path, column: str = "relevant") -> dict[str, int]:
    """cluster -> 0/1 from a filled sheet; a blank or other value names the file, line and field.

    A cluster id is read back as written before the sheet neutralised it for spreadsheets (``original_cell``).
    """
    try:
        handle = path.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    out: dict[str, int] = {}
    with handle:
        reader = csv.DictReader(handle)
        for field in ("cluster", column):
            if field not in (reader.fieldnames or []):
                raise InputError(path, f"no '{field}' column", line=1, field=field)
        for line, row in enumerate(reader, start=2):
            value = (row[column] or "").strip()
            if value not in ("0", "1"):
                raise InputError(path, f"{value!r} is not 0 or 1", line=line, field=column,
                                 hint="mark every cluster 1 (relevant to the task) or 0")
            cluster = original_cell((row["cluster"] or "").strip())
            if cluster in out:
                raise InputError(path, f"cluster {cluster!r} appears twice", line=line, field="cluster")
            out[cluster] = int(value)
    return out


def write_labels(path: Path, labels: dict[str, int], column: str = "relevant", *,
                 adjudicator: str | None = None) -> None:
    """cluster -> 0/1 as the CSV ``read_labels`` reads (an adjudication file), written atomically.

    ``adjudicator`` adds a column with the adjudicator's name on every row (``read_labels`` ignores it; the
    view reads it back to print the ``--adjudicator`` of the record's command)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    who = [] if adjudicator is None else [spreadsheet_cell(adjudicator)]
    writer.writerow(["cluster", column, *(["adjudicator"] if who else [])])
    writer.writerows((spreadsheet_cell(cluster), label, *who) for cluster, label in sorted(labels.items()))
    write_bytes_atomic(path, buffer.getvalue().encode("utf-8"))


def adjudicate(first: Annotation, second: Annotation, *, author: str,
               adjudication: Path | None) -> tuple[dict[str, int], dict[str, Any]]:
    """Final R(c) and the agreement report. The plan's author may not be a primary annotator.

    Without an adjudication file every disagreement stays open (the report says so, and no R is returned
    for those clusters); with one, it must resolve exactly the disagreements.
    """
    for ann in (first, second):
        check_annotator(ann.annotator, author)
    if same_person(first.annotator, second.annotator):
        raise UsageError("double annotation needs two different annotators")
    a, b = read_labels(first.path), read_labels(second.path)
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))
        raise InputError(second.path, f"the two sheets annotate different clusters (e.g. {only[0]!r})",
                         field="cluster", hint="both annotators fill the same exported sheet")
    clusters = sorted(a)
    kappa = cohens_kappa([a[c] for c in clusters], [b[c] for c in clusters])
    disagreements = [c for c in clusters if a[c] != b[c]]
    final = {c: a[c] for c in clusters if a[c] == b[c]}
    resolved: dict[str, int] = {}
    if adjudication is not None:
        resolved = read_labels(adjudication)
        extra = sorted(set(resolved) - set(disagreements))
        if extra:
            raise InputError(adjudication, f"cluster {extra[0]!r} was not a disagreement", field="cluster",
                             hint="adjudicate only the clusters the annotators disagree on")
        final |= resolved
    open_items = [c for c in disagreements if c not in resolved]
    report = {"annotators": [first.annotator, second.annotator], "author": author, "clusters": len(clusters),
              "observed_agreement": (len(clusters) - len(disagreements)) / len(clusters),
              "cohens_kappa": kappa, "disagreements": disagreements, "adjudicated": sorted(resolved),
              "open_disagreements": open_items, "complete": not open_items}
    return final, report
