"""Relevance R(c) from double, condition-masked annotation: author refused, kappa, adjudication."""

from __future__ import annotations

import csv
import io
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.core.names import name_key, name_problem, same_person
from forgegate.errors import InputError, UsageError
from forgegate.jsonio import write_bytes_atomic
from forgegate.semantic.agreement import cohens_kappa
from forgegate.semantic.sheet_reader import read_keyed_sheet
from forgegate.textsafe import spreadsheet_cell


@dataclass(frozen=True)
class Annotation:
    """One annotator's filled relevance sheet."""

    annotator: str
    path: Path


def author_problem(annotator: str, author: str) -> str | None:
    """Why ``annotator`` may not be a primary annotator (T_GPT: author_primary_annotation_forbidden), or None.

    The one rule for the command, the view and the adjudicated record's loader. Names are compared as people
    read them (``core.names``: NFKC, case, invisible characters and look-alike letters ignored); an annotator
    name that is empty once invisible characters are removed, or that mixes scripts, is refused here too.
    """
    problem = name_problem(annotator, "an annotator's name")
    if problem is not None:
        return problem
    if same_person(annotator, author):
        return (f"{annotator!r} wrote the plan and may not be a primary annotator; "
                "ask two other people to annotate (the author may adjudicate)")
    return None


def check_annotator(annotator: str, author: str) -> None:
    """Refuse the plan's author (compared as ``core.names.same_person`` reads names) as a primary annotator."""
    if not name_key(author):
        raise UsageError("--author is required: the plan's author may not be a primary annotator")
    author_name = name_problem(author, "the plan's author")
    if author_name is not None:
        raise UsageError(author_name)
    problem = author_problem(annotator, author)
    if problem is not None:
        raise UsageError(problem)


def read_labels(path: Path, column: str = "relevant") -> dict[str, int]:
    """cluster -> 0/1 from a filled sheet (``sheet_reader``: one row per cluster, bounded, UTF-8); a blank or
    other value, a repeated cluster or a sheet with no cluster row names the file, line and field.

    A cluster id is read back as written before the sheet neutralised it for spreadsheets (``original_cell``).
    """
    sheet = read_keyed_sheet(path, ("cluster", column), "cluster", label=column)
    out: dict[str, int] = {}
    for cluster, (line, row) in sheet.rows.items():
        value = row[column].strip()
        if value not in ("0", "1"):
            raise InputError(path, f"{value!r} is not 0 or 1", line=line, field=column,
                             hint="mark every cluster 1 (relevant to the task) or 0")
        out[cluster] = int(value)
    return out


def check_codebook_coverage(annotated: Collection[str], codebook_clusters: Collection[str], path: Path) -> None:
    """The sheets must annotate exactly the clusters of the codebook whose hash the record will carry: a record
    stamped with a codebook's hash that leaves clusters out (or names clusters it does not have) would read as
    that codebook's R(c) while covering another set."""
    unknown = sorted(set(annotated) - set(codebook_clusters))
    if unknown:
        raise InputError(path, f"cluster {unknown[0]!r} is not in the codebook ({len(unknown)} such)", field="cluster",
                         hint="annotate the relevance sheet exported from this codebook")
    missing = sorted(set(codebook_clusters) - set(annotated))
    if missing:
        raise InputError(path, f"the sheets leave out {len(missing)} of the codebook's {len(set(codebook_clusters))} "
                         f"clusters (e.g. {', '.join(missing[:3])})", field="cluster",
                         hint="every frozen cluster is annotated: fill the whole exported relevance sheet")


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
    if not clusters:
        raise InputError(first.path, "the sheet has no cluster rows: nothing was annotated", line=2, field="cluster",
                         hint="fill the relevance_sheet.csv forgegate semantic cluster exported, one row a cluster")
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
