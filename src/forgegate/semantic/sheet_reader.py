"""The one reader of every sheet a person fills: one row per key, a bounded size, UTF-8, errors at file:line.

A human sheet (cluster validation, E4 recurrence, relevance, adjudication, the Q_task review) is a table
whose rows are known by a key (``row``, ``cluster``). A score counts each key once: a key given twice would
count one label twice (rows 1-5 twice and 6-10 never labelled read "10 of 10 labelled"), and a key given
twice with different labels would let the last row win silently. So a repeated key is refused with both
line numbers, whether the two rows agree or not, and "N of M labelled" is counted over the keys the sheet
must cover (``coverage``), never over rows. A sheet is read whole by the one reader of user files
(``forgegate.jsonio.read_bytes_or_input_error``): its size is bounded first and a device, FIFO or folder is
refused as such: ``/dev/zero`` is not a sheet.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from forgegate.errors import InputError
from forgegate.jsonio import decode_utf8_or_input_error, read_text_or_input_error
from forgegate.textsafe import original_cell

V = TypeVar("V")


def one_row_per_key(path: Path | str, field: str, entries: Iterable[tuple[int, str, V]], *,
                    label: str | None = None, labels: Mapping[str, str] | None = None) -> dict[str, tuple[int, V]]:
    """key -> (line, value) in file order; a key given twice is an InputError naming both lines.

    ``labels`` (key's line -> its label cell, when the sheet has one) lets the message say whether the two rows
    conflict; both are refused either way, since neither may count twice and neither may silently win.
    """
    out: dict[str, tuple[int, V]] = {}
    for line, key, value in entries:
        if not key:
            raise InputError(path, f"a row with no {field}", line=line, field=field,
                             hint=f"every row keeps the {field} forgegate wrote; do not add rows")
        if key in out:
            first = out[key][0]
            a, b = (labels or {}).get(str(first)), (labels or {}).get(str(line))
            conflict = (f" with different {label} ({a!r} and {b!r})" if label and a is not None and b is not None
                        and a.strip() != b.strip() else "")
            raise InputError(path, f"{field} {key!r} is on line {first} and again on line {line}{conflict}: a sheet "
                             f"has one row per {field}", line=line, field=field,
                             hint=f"keep one row for {field} {key!r} (the one with the label you mean) and delete "
                                  "the other")
        out[key] = (line, value)
    return out


@dataclass(frozen=True)
class KeyedSheet:
    """A filled CSV sheet read by its key: the header, and per key its line and cells (original text)."""

    path: Path
    header: tuple[str, ...]
    rows: dict[str, tuple[int, dict[str, str]]]

    def coverage(self, keys: Collection[str], column: str) -> tuple[list[str], list[str]]:
        """(labelled, unlabelled) among ``keys``, the keys the sheet must cover, in the order given: a key with
        no row or a blank ``column`` is unlabelled. "N of M labelled" is ``len(labelled)`` of ``len(keys)``."""
        labelled = [k for k in keys if k in self.rows and self.rows[k][1].get(column, "").strip()]
        done = set(labelled)
        return labelled, [k for k in keys if k not in done]


def read_keyed_sheet(path: Path, need: tuple[str, ...], key: str, *, label: str | None = None,
                     what: str = "sheet", raw: bytes | None = None) -> KeyedSheet:
    """A CSV sheet with the columns ``need`` (others allowed), one row per ``key``; ``label`` is the column a person
    fills (named in a conflicting duplicate's message). A column named twice, a row with more cells than the
    header, a missing column, a repeated key, non-UTF-8 and a file over the size limit are InputErrors at their
    line. ``raw``: the file's bytes when the caller read (and hashed) them; the file is then not read."""
    text = (read_text_or_input_error(path, what=what) if raw is None
            else decode_utf8_or_input_error(path, raw, bom=True))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError(path, f"not a CSV {what}: {exc}", line=1) from None
    if not header:
        raise InputError(path, f"empty {what}: no header line", line=1,
                         hint=f"use the {what} forgegate wrote, with only its label column filled in")
    header = [original_cell(h) for h in header]
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(path, f"column {name!r} appears twice in the header", line=1, field=name,
                             hint="keep one column of each name (a reader would silently use one of them)")
        seen.add(name)
    missing = [c for c in need if c not in seen]
    if missing:
        raise InputError(path, f"no column {missing[0]!r} (columns: {', '.join(header)})", line=1, field=missing[0],
                         hint=f"use the {what} forgegate wrote, with only its label column filled in")
    entries: list[tuple[int, str, dict[str, str]]] = []
    cells_at: dict[str, str] = {}
    line = 2
    try:
        for cells in reader:
            if cells and len(cells) > len(header):
                raise InputError(path, f"{len(cells)} cells, the header has {len(header)}", line=line,
                                 hint="a cell holding a comma is quoted; do not add columns")
            if any(c.strip() for c in cells):
                row = {name: original_cell(cells[i]) if i < len(cells) else "" for i, name in enumerate(header)}
                entries.append((line, row[key].strip(), row))
                if label is not None:
                    cells_at[str(line)] = row.get(label, "")
            line = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(path, f"not a CSV {what}: {exc}", line=line) from None
    rows = one_row_per_key(path, key, entries, label=label, labels=cells_at)
    return KeyedSheet(path, tuple(header), rows)
