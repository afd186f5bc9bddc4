"""The T_GPT sheets a person fills, as files next to the exported sheet: one per annotator, one adjudication.

``forgegate semantic cluster`` exports ``relevance_sheet.csv`` (one row a cluster, condition
masked) and ``validation_sheet.csv`` (pairs of answers, blinded). An annotator named ``ana``
fills ``relevance_sheet.ana.csv``, the same columns with the label column filled, which is
the file ``forgegate semantic relevance --first ana=...`` reads; the adjudication of the
disagreements is ``relevance_sheet.adjudication.csv`` (cluster, relevant). Agreement and
adjudication are computed by ``forgegate.semantic`` (the same functions the command uses).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from forgegate.errors import UsageError
from forgegate.results.semantic_checks import Adjudication
from forgegate.semantic.agreement import cohens_kappa
from forgegate.semantic.relevance import Annotation, adjudicate, check_annotator, write_labels
from forgegate.semantic.sheet_reader import read_keyed_sheet
from forgegate.semantic.sheets import RELEVANCE_COLUMNS, VALIDATION_COLUMNS, read_sheet, write_filled_sheet

ADJUDICATION = "adjudication"
ADJ_FIELD = "adj:"
"""The adjudication form's field for one decision is this prefix and the cluster id it decides."""
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


@dataclass(frozen=True)
class SheetKind:
    name: str
    key: str
    """The column a row is known by."""
    column: str
    """The column the annotator fills with 0 or 1."""
    question: str


RELEVANCE = SheetKind("relevance", "cluster", "relevant", "Is this cluster relevant to the task? (1 yes, 0 no)")
VALIDATION = SheetKind("validation", "row", "same_meaning", "Do the two answers mean the same? (1 yes, 0 no)")


@dataclass(frozen=True)
class Sheet:
    path: Path
    kind: SheetKind
    rows: list[dict[str, str]]

    def annotation_path(self, annotator: str) -> Path:
        return self.path.with_name(f"{self.path.stem}.{annotator}.csv")

    @property
    def adjudication_path(self) -> Path:
        return self.path.with_name(f"{self.path.stem}.{ADJUDICATION}.csv")

    def annotators(self) -> list[str]:
        """Who has saved labels, in the order they started (file creation); names differing only in case are
        one annotator (the first file counts)."""
        found = [p for p in self.path.parent.glob(f"{self.path.stem}.*.csv")
                 if p.stem.split(".")[-1].casefold() != ADJUDICATION and NAME.match(p.stem.split(".")[-1])]
        names: dict[str, str] = {}
        for p in sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name)):
            names.setdefault(p.stem.split(".")[-1].casefold(), p.stem.split(".")[-1])
        return list(names.values())

    def labels(self, annotator: str) -> dict[str, int | None]:
        """The annotator's label per key of this sheet (None: blank), read through the one sheet reader: a key
        their file holds twice is an InputError naming both lines, never a label counted twice or overwritten."""
        path = self.annotation_path(annotator)
        if not path.is_file():
            return {}
        filled = read_keyed_sheet(path, (self.kind.key, self.kind.column), self.kind.key, label=self.kind.column)
        out: dict[str, int | None] = {}
        for row in self.rows:
            key = row[self.kind.key]
            value = filled.rows[key][1][self.kind.column].strip() if key in filled.rows else ""
            out[key] = int(value) if value in ("0", "1") else None
        return out


def load_sheet(path: Path) -> Sheet:
    """An exported sheet, recognised by its columns, one row per key; anything else is refused, saying which
    columns it needs."""
    header, _ = read_sheet(path)
    for columns, kind in ((RELEVANCE_COLUMNS, RELEVANCE), (VALIDATION_COLUMNS, VALIDATION)):
        if tuple(header) == columns:
            keyed = read_keyed_sheet(path, columns, kind.key, label=kind.column)
            return Sheet(path, kind, [row for _, row in keyed.rows.values()])
    raise UsageError(f"--sheet {path}: not a sheet `forgegate semantic cluster` exports (columns "
                     f"{', '.join(RELEVANCE_COLUMNS)} or {', '.join(VALIDATION_COLUMNS)})")


def check_name(annotator: str, author: str | None, sheet: Sheet) -> str:
    """A primary annotator's name, refused when it is the plan's author or a third annotator.

    Names are compared without case: ``Ana`` is the ``ana`` who already saved (her file, her spelling), and
    a new name is kept in lower case, so one person never becomes two sheets.
    """
    name = annotator.strip()
    if not NAME.match(name) or name.casefold() == ADJUDICATION:
        raise UsageError("an annotator's name is a letter then up to 39 letters, digits, - or _ (it names the file)")
    if author is None:
        raise UsageError("annotation needs the plan's author, who may not annotate: start forgegate view with "
                         "--author NAME")
    check_annotator(name, author)
    known = sheet.annotators()
    same = [a for a in known if a.casefold() == name.casefold()]
    if same:
        return same[0]
    if len(known) >= 2:
        raise UsageError(f"this sheet already has two annotators ({', '.join(known)}): it is double annotation")
    return name.lower()


def save_labels(sheet: Sheet, annotator: str, labels: dict[str, int | None]) -> None:
    write_filled_sheet(sheet.path, sheet.annotation_path(annotator), sheet.kind.key, sheet.kind.column, labels)


def agreement(sheet: Sheet, author: str | None) -> Adjudication | None:
    """Kappa and disagreements once two annotators have labelled every row (None before that).

    A relevance sheet goes through ``adjudicate`` (the `semantic relevance` command's function,
    with the adjudication file when there is one); a validation sheet through ``cohens_kappa``.
    """
    names = sheet.annotators()[:2]
    keys = [r[sheet.kind.key] for r in sheet.rows]
    if len(names) < 2 or any(None in (sheet.labels(n).get(k) for k in keys) for n in names):
        return None
    if sheet.kind is RELEVANCE:
        adjudication = sheet.adjudication_path if sheet.adjudication_path.is_file() else None
        _, report = adjudicate(Annotation(names[0], sheet.annotation_path(names[0])),
                               Annotation(names[1], sheet.annotation_path(names[1])), author=author or "",
                               adjudication=adjudication)
        return Adjudication.model_validate(report)
    first, second = (sheet.labels(n) for n in names)
    a = [v for v in (first[k] for k in keys) if v is not None]  # complete: every key has a label
    b = [v for v in (second[k] for k in keys) if v is not None]
    differ = [k for k in keys if first[k] != second[k]]
    return Adjudication(annotators=names, clusters=len(keys), observed_agreement=(len(keys) - len(differ)) / len(keys),
                        cohens_kappa=cohens_kappa(a, b), disagreements=differ, adjudicated=[],
                        open_disagreements=differ, complete=True)


def disagreement_digest(disagreements: list[str]) -> str:
    """sha256 of the disagreement list a page showed: the adjudication form posts it beside the cluster ids it
    decides, and the save is refused when the list is no longer the same (an annotator changed labels since)."""
    return hashlib.sha256(json.dumps(list(disagreements), ensure_ascii=False).encode("utf-8")).hexdigest()


def adjudication_decisions(fields: dict[str, str], disagreements: list[str]) -> dict[str, int] | str:
    """The decisions a posted adjudication form carries (cluster id -> 0/1), or why they are refused.

    Each decision names its cluster (``adj:<cluster id>``) and the form names the digest of the list it showed,
    so a decision can only be saved for the cluster the adjudicator saw: a changed list is refused with a reload
    message, never matched by position."""
    if fields.get("digest", "") != disagreement_digest(disagreements):
        return ("the disagreements changed since this page was opened (an annotator saved new labels): reload the "
                "page and decide the list it shows now; nothing was saved")
    named = {name[len(ADJ_FIELD):]: value for name, value in fields.items() if name.startswith(ADJ_FIELD)}
    stray = sorted(set(named) - set(disagreements))
    if stray:
        return f"cluster {stray[0]!r} is not a disagreement of this sheet: reload the page; nothing was saved"
    decisions = {key: int(value) for key, value in named.items() if value in ("0", "1")}
    if set(decisions) != set(disagreements):
        return "decide every disagreement (1 or 0)"
    return decisions


def save_adjudication(sheet: Sheet, decisions: dict[str, int], adjudicator: str | None = None) -> None:
    """The adjudicated labels of the disagreements: the CSV `semantic relevance --adjudication` reads, with the
    adjudicator's name (the record's ``--adjudicator``)."""
    write_labels(sheet.adjudication_path, decisions, adjudicator=adjudicator)


def adjudicator_of(sheet: Sheet) -> str | None:
    """Who saved the adjudication (None: nobody yet, or a file written without the name)."""
    if not sheet.adjudication_path.is_file():
        return None
    _, rows = read_sheet(sheet.adjudication_path)
    names = {row.get("adjudicator") or "" for row in rows} - {""}
    return names.pop() if len(names) == 1 else None
