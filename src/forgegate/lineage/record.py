"""The lineage file: one JSON record a decision (``forgegate.results.LineageRecord``), appended crash-safely,
read with damage reports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from forgegate.errors import InputError
from forgegate.results import LineageRecord, upgrade_legacy
from forgegate.results.record_file import LineProblem, append_record_line, read_record_lines, validate_record

__all__ = ["Lineage", "LineProblem", "append_record", "now_utc", "read_lineage"]


@dataclass(frozen=True)
class Lineage:
    path: Path
    records: tuple[tuple[int, LineageRecord], ...]
    """(line number, record), oldest first."""
    problems: tuple[LineProblem, ...]

    @property
    def last(self) -> LineageRecord | None:
        return self.records[-1][1] if self.records else None

    def last_graduated(self) -> LineageRecord | None:
        return next((r for _, r in reversed(self.records) if r.graduated), None)


def read_lineage(path: Path, *, missing_ok: bool = False) -> Lineage:
    """Every record, oldest first. A damaged line anywhere (a partial last line from an interrupted append
    included) is an InputError naming file and line, never skipped: a skipped EVAL_FALSE_POSITIVE record
    would let the next version graduate on the battery it marks (issue 46). A line that is valid JSON but
    not a valid record is a hand edit gone wrong: an InputError naming file, line and field. A byte-order
    mark before the first line is read as the encoding's."""
    path = Path(path)
    try:
        records, problems = read_record_lines(path, _record, strict=True)
    except FileNotFoundError:
        if missing_ok:
            return Lineage(path, (), ())
        raise InputError(path, "lineage file not found",
                         hint="`forgegate graduate --lineage` creates it") from None
    return Lineage(path, tuple(records), tuple(problems))


def _record(obj: dict[str, object], path: Path, number: int) -> LineageRecord:
    """One line through the record model (a line written before results were versioned is upgraded)."""
    if "schema_version" not in obj:
        obj = upgrade_legacy(obj, f"{path}:{number}")
    return validate_record(LineageRecord, obj, path, number)


def append_record(path: Path, record: LineageRecord) -> int:
    """Append ``record`` to the lineage file as one line; return its line number."""
    return append_record_line(path, record)


def now_utc() -> datetime:
    return datetime.now(UTC)
