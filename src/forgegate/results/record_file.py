"""A file of records, one JSON object a line, only ever appended: crash-safe appends, damage reported on read.

The lineage file (``forgegate graduate --lineage``) and the training probe file
(``forgegate-probes.jsonl``) are both this: a writer appends one whole line with one write and
an fsync; a reader keeps every intact line and reports (never fails on) a partial or damaged
one, the trace of an interrupted append. A line that is valid JSON but not a valid record is a
hand edit gone wrong: that is an InputError naming file, line and field.
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_bytes_or_input_error, validation_to_input_error
from forgegate.results.base import SCHEMA_VERSION
from forgegate.results.legacy import REGENERATE

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class LineProblem:
    """A damaged line of a record file (an interrupted append): reported, skipped, never fatal."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def read_record_lines(path: Path, parse: Callable[[dict[str, object], Path, int], M], *, strict: bool = False
                      ) -> tuple[list[tuple[int, M]], list[LineProblem]]:
    """(line number, record) for every intact line, oldest first, and the damaged lines.

    A byte-order mark before the first line (as Windows editors save a file) is the encoding's, not the
    record's (issue 46: it made the first record read as damaged and skipped). ``strict`` (the lineage, whose
    every record can decide a graduation): any damaged line, the last one included, is an InputError naming
    file and line, never skipped or read past. ``FileNotFoundError`` is the caller's to word (what creates the
    file differs).
    """
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    raw = read_bytes_or_input_error(Path(path), what="record file",
                                    hint="pass the JSONL file forgegate appends its records to")
    raw = raw.removeprefix(codecs.BOM_UTF8)  # the encoding's mark, not the first record's
    segments = raw.split(b"\n")
    terminated = raw.endswith(b"\n")
    if terminated:
        segments.pop()
    records: list[tuple[int, M]] = []
    problems: list[LineProblem] = []
    for number, segment in enumerate(segments, start=1):
        if not segment.strip():
            continue
        unterminated = number == len(segments) and not terminated
        try:
            obj = parse_json_strict(segment.decode("utf-8"), finite=True)
        except JsonProblem as exc:  # whole JSON, but not a record forgegate wrote: the user must look
            raise InputError(path, exc.message, line=number, field=exc.field, hint=exc.hint) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            what = "partial last line (no trailing newline)" if unterminated else "damaged line"
            if strict:
                raise InputError(path, f"{what}, not a complete JSON record ({exc})", line=number,
                                 hint="repair or remove that line by hand (an interrupted append leaves a partial "
                                      "last line: remove it and run the command that wrote it again); forgegate "
                                      "reads no record past a damaged one") from None
            problems.append(LineProblem(path, number, f"{what}, not a complete JSON record ({exc}): "
                                        "an interrupted append; skipped, the other lines are intact"))
            continue
        if not isinstance(obj, dict):
            raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", line=number)
        records.append((number, parse(obj, path, number)))
        if unterminated:
            problems.append(LineProblem(path, number, "last line has no trailing newline (record complete, "
                                        "kept; the next append starts a new line)"))
    return records, problems


def validate_record(model: type[M], obj: dict[str, object], path: Path, number: int) -> M:
    """One line through ``model``: a schema version this forgegate does not read, or a bad field, names the line."""
    if obj.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise InputError(path, f"schema_version {obj['schema_version']!r}: this forgegate reads version "
                         f"{SCHEMA_VERSION}", line=number, field="schema_version", hint=REGENERATE)
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise validation_to_input_error(path, number, exc) from None


def append_record_line(path: Path, record: BaseModel) -> int:
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
