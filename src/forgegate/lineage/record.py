"""The lineage file: one JSON record a decision (``forgegate.results.LineageRecord``), appended crash-safely,
read with damage reports."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from forgegate.errors import InputError
from forgegate.jsonio import validation_to_input_error
from forgegate.results import SCHEMA_VERSION, LineageRecord, upgrade_legacy
from forgegate.results.legacy import REGENERATE


@dataclass(frozen=True)
class LineProblem:
    """A damaged line of the lineage file (an interrupted append): reported, skipped, never fatal."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


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
    """Every intact record; damaged lines (a partial last line, an interrupted append) are reported.

    A line that is valid JSON but not a valid record is a hand edit gone wrong, not a crash:
    that is an InputError naming file, line and field.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return Lineage(path, (), ())
        raise InputError(path, "lineage file not found",
                         hint="`forgegate graduate --lineage` creates it") from None
    segments = raw.split(b"\n")
    terminated = raw.endswith(b"\n")
    if terminated:
        segments.pop()
    records: list[tuple[int, LineageRecord]] = []
    problems: list[LineProblem] = []
    for number, segment in enumerate(segments, start=1):
        if not segment.strip():
            continue
        unterminated = number == len(segments) and not terminated
        try:
            obj = json.loads(segment.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            what = "partial last line (no trailing newline)" if unterminated else "damaged line"
            problems.append(LineProblem(path, number, f"{what}, not a complete JSON record ({exc}): "
                                        "an interrupted append; skipped, the other lines are intact"))
            continue
        if not isinstance(obj, dict):
            raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", line=number)
        records.append((number, _record(obj, path, number)))
        if unterminated:
            problems.append(LineProblem(path, number, "last line has no trailing newline (record complete, "
                                        "kept; the next append starts a new line)"))
    return Lineage(path, tuple(records), tuple(problems))


def _record(obj: dict[str, object], path: Path, number: int) -> LineageRecord:
    """One line through the record model (a line written before results were versioned is upgraded)."""
    if "schema_version" not in obj:
        obj = upgrade_legacy(obj, f"{path}:{number}")
    elif obj["schema_version"] != SCHEMA_VERSION:
        raise InputError(path, f"schema_version {obj['schema_version']!r}: this forgegate reads version "
                         f"{SCHEMA_VERSION}", line=number, field="schema_version", hint=REGENERATE)
    try:
        return LineageRecord.model_validate(obj)
    except ValidationError as exc:
        raise validation_to_input_error(path, number, exc) from None


def append_record(path: Path, record: LineageRecord) -> int:
    """Append ``record`` as one line (flush + fsync) and return its line number.

    If the file ends without a newline (an earlier append was cut short), a newline is
    written first so the new record never glues onto the partial line.
    """
    path = Path(path)
    line = json.dumps(record.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    created = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        handle.seek(0)
        existing = handle.read()
        prefix = b"\n" if existing and not existing.endswith(b"\n") else b""
        number = existing.count(b"\n") + (1 if prefix else 0) + 1
        handle.write(prefix + line.encode("utf-8") + b"\n")  # one write: whole line or a detectable prefix
        handle.flush()
        os.fsync(handle.fileno())
    if created:
        _fsync_dir(path.parent)
    return number


def _fsync_dir(directory: Path) -> None:
    """Make a newly created file's directory entry durable (POSIX; a no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def now_utc() -> datetime:
    return datetime.now(UTC)
