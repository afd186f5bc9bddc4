"""Blinded, condition-masked CSV sheets: cluster validation pairs and per-cluster relevance annotation.

The sheets hold model text and are opened in spreadsheets: every text cell is written through
``textsafe.spreadsheet_cell`` (a leading ``'`` before ``=``, ``+``, ``-``, ``@``, tab, CR or ``'``), so no
cell is evaluated, and ``read_sheet`` gives back the original text (``textsafe.original_cell``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from itertools import combinations
from pathlib import Path

import numpy as np

from forgegate.errors import InputError
from forgegate.jsonio import read_text_or_input_error, write_bytes_atomic
from forgegate.semantic.codebook import Codebook
from forgegate.textsafe import original_cell, spreadsheet_cell

VALIDATION_COLUMNS = ("row", "task", "question", "answer_1", "answer_2", "same_meaning")
RELEVANCE_COLUMNS = ("row", "cluster", "task", "question", "label", "exemplar_1", "exemplar_2", "exemplar_3",
                     "relevant")


def sheet_csv(header: list[str] | tuple[str, ...], rows: list[dict[str, object]], *,
              lineterminator: str = "\r\n") -> bytes:
    """The CSV bytes of ``rows``: every text cell neutralised (``spreadsheet_cell``), numbers as they are."""
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(header), lineterminator=lineterminator)
    writer.writeheader()
    writer.writerows({k: spreadsheet_cell(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows)
    return buffer.getvalue().encode("utf-8")


def _write(path: Path, header: tuple[str, ...], rows: list[dict[str, object]]) -> None:
    write_bytes_atomic(path, sheet_csv(header, rows))


def validation_sheet(book: Codebook, sheet: Path, key: Path, rng: np.random.Generator,
                     within_per_cluster: int = 2) -> int:
    """Pairs of answers, shuffled, for humans to mark same_meaning 1/0; the clustering's verdict goes to ``key``.

    Within-cluster pairs of exemplars and pairs of representatives of different clusters; the sheet
    shows no cluster ID, no condition and no count, so the annotator sees only the two texts.
    """
    items: list[tuple[str, str, str, str, str, int]] = []
    for task, entry in sorted(book.tasks.items()):
        for c in entry.clusters:
            for a, b in list(combinations(c.exemplars, 2))[:within_per_cluster]:
                items.append((task, entry.question, a, b, f"{c.id}|{c.id}", 1))
        for c1, c2 in combinations(entry.clusters, 2):
            items.append((task, entry.question, c1.representative, c2.representative, f"{c1.id}|{c2.id}", 0))
    order = rng.permutation(len(items))
    sheet_rows: list[dict[str, object]] = []
    key_rows: list[dict[str, object]] = []
    for row, idx in enumerate(order, start=1):
        task, question, a, b, clusters, same = items[int(idx)]
        if rng.random() < 0.5:
            a, b = b, a
        sheet_rows.append({"row": row, "task": task, "question": question, "answer_1": a, "answer_2": b,
                           "same_meaning": ""})
        key_rows.append({"row": row, "clusters": clusters, "clustering_same": same})
    _write(sheet, VALIDATION_COLUMNS, sheet_rows)
    _write(key, ("row", "clusters", "clustering_same"), key_rows)
    return len(items)


def relevance_sheet(book: Codebook, sheet: Path, rng: np.random.Generator) -> int:
    """One row per frozen cluster, shuffled across tasks; no condition, no per-condition count (masked)."""
    clusters = [(task, entry.question, c) for task, entry in sorted(book.tasks.items()) for c in entry.clusters]
    rows: list[dict[str, object]] = []
    for row, idx in enumerate(rng.permutation(len(clusters)), start=1):
        task, question, c = clusters[int(idx)]
        ex = [*c.exemplars, "", "", ""][:3]
        rows.append({"row": row, "cluster": c.id, "task": task, "question": question, "label": c.label,
                     "exemplar_1": ex[0], "exemplar_2": ex[1], "exemplar_3": ex[2], "relevant": ""})
    _write(sheet, RELEVANCE_COLUMNS, rows)
    return len(rows)


def read_sheet(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of an exported sheet, blank or filled, each cell's original text (``original_cell``),
    read within the size limit (``sheet_reader.read_bounded_text``). Readers that count labels use
    ``sheet_reader.read_keyed_sheet`` (one row per key); this one copies a sheet as it is."""
    reader = csv.DictReader(io.StringIO(read_text_or_input_error(path, what="sheet"), newline=""))
    rows = [{k: original_cell(v) if isinstance(v, str) else v for k, v in row.items()} for row in reader]
    if not reader.fieldnames:
        raise InputError(path, "empty sheet: no header line", line=1)
    return list(reader.fieldnames), rows


def write_filled_sheet(blank: Path, out: Path, key: str, column: str, labels: Mapping[str, int | None]) -> None:
    """``blank`` with ``column`` filled from ``labels`` (by each row's ``key``; None leaves it blank), written
    atomically to ``out``: the file an annotator would have filled by hand, for the same readers."""
    header, rows = read_sheet(blank)
    filled: list[dict[str, object]] = []
    for row in rows:
        value = labels.get(row[key])
        filled.append({**row, column: "" if value is None else str(value)})
    write_bytes_atomic(out, sheet_csv(header, filled))
