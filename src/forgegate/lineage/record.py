"""The lineage file: one JSON record a decision, appended crash-safely, read with damage reports."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.jsonio import validation_to_input_error
from forgegate.lineage.results import BatteryRef, CategoryScore, GateConfigRef, ItemFields, ResultItem, RunResult


class ItemScore(ItemFields):
    """An item's score as the record keeps it: enough to pair it with a later run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @staticmethod
    def from_item(item: ResultItem) -> ItemScore:
        return ItemScore(id=item.id, category=item.category, seed=item.seed, score=item.score,
                         passed=item.passed, finish=item.finish, failure_modes=sorted(item.all_failure_modes))


class AcceptedRegression(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    note: str


class RecordReason(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str
    outcome: Gate
    detail: str


class LineageRecord(BaseModel):
    """One graduation decision (graduated or not). Lines are never rewritten."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lineage_format: Literal[1]
    version: str = Field(min_length=1)
    date: datetime
    model: str | None
    model_digest: str | None
    run_id: str | None
    live_run_id: str | None
    battery_sha256: str
    gate_config_name: str
    gate_config_sha256: str
    category_scores: dict[str, float | None]
    sigma_total: float | None
    battery_gate: Gate
    live_gate: Gate | None
    verdict: Gate
    graduated: bool
    reasons: list[RecordReason]
    failure_modes: list[str]
    regressions: list[str]
    accepted_regressions: list[AcceptedRegression]
    compared_to: str | None
    """The graduated version this one was compared with (None: no comparable graduated version)."""
    comparable_to_previous: bool | None
    """Same battery and gate config as the record before it (None for the first record)."""
    note: str | None
    forgegate_version: str
    items: list[ItemScore]

    @model_validator(mode="after")
    def _graduated_means_pass(self) -> LineageRecord:
        if self.graduated != (self.verdict == Gate.PASS):
            raise ValueError(f"graduated={self.graduated} contradicts verdict {self.verdict.value}")
        return self

    def comparable_with(self, other: LineageRecord) -> bool:
        return (self.battery_sha256 == other.battery_sha256
                and self.gate_config_sha256 == other.gate_config_sha256)

    def as_run_result(self) -> RunResult:
        """The record's scores in the shape a paired comparison reads."""
        return RunResult(
            model=self.model,
            run_id=self.run_id,
            battery=BatteryRef(sha256=self.battery_sha256),
            gate_config=GateConfigRef(name=self.gate_config_name, sha256=self.gate_config_sha256),
            gate=self.battery_gate,
            sigma_total=self.sigma_total,
            categories={k: CategoryScore(score=v) for k, v in self.category_scores.items()},
            failure_modes=self.failure_modes,
            model_digest=self.model_digest,
            items=[ResultItem.model_validate(i.model_dump()) for i in self.items],
        )


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
        try:
            records.append((number, LineageRecord.model_validate(obj)))
        except ValidationError as exc:
            raise validation_to_input_error(path, number, exc) from None
        if unterminated:
            problems.append(LineProblem(path, number, "last line has no trailing newline (record complete, "
                                        "kept; the next append starts a new line)"))
    return Lineage(path, tuple(records), tuple(problems))


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
