"""The user-written semantic input rows (samples, relevance, aggregates), read with file:line:field errors."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from forgegate.errors import InputError
from forgegate.jsonio import read_jsonl_models

UNMAPPED = "UNMAPPED"
"""The frozen codebook's label for a confirmation sample that matches no frozen cluster."""


class SampleRow(BaseModel):
    """One generation's frozen assignment: ``{"task", "condition", "sample", "cluster"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    condition: str = Field(min_length=1)
    sample: int | str
    cluster: str = Field(min_length=1)


class RelevanceRow(BaseModel):
    """The adjudicated relevance R(c) of one frozen cluster: ``{"cluster", "relevant"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cluster: str = Field(min_length=1)
    relevant: int = Field(ge=0, le=1)


class AggregateRow(BaseModel):
    """Clusters an aggregate Y of branch pool P represents: ``{"task", "pool", "aggregate", "clusters"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    pool: str = Field(min_length=1)
    aggregate: str = Field(min_length=1)
    clusters: list[str]


def read_samples(path: Path) -> list[SampleRow]:
    """Sample rows; a repeated (task, condition, sample) is an error naming both lines."""
    seen: dict[tuple[str, str, str], int] = {}
    rows: list[SampleRow] = []
    for line, row in read_jsonl_models(path, SampleRow):
        key = (row.task, row.condition, str(row.sample))
        if key in seen:
            raise InputError(path, f"sample {row.sample!r} of task {row.task!r} condition {row.condition!r} "
                             f"repeats line {seen[key]}", line=line, field="sample",
                             hint="each generation gets exactly one frozen assignment")
        seen[key] = line
        rows.append(row)
    if not rows:
        raise InputError(path, "no sample rows", hint="one JSON object per generation")
    return rows


def read_relevance(path: Path, raw: bytes | None = None) -> dict[str, int]:
    """R(c) by cluster (from ``raw``, the file's bytes, when the caller read them); a cluster listed twice or
    the UNMAPPED label is an error."""
    relevance: dict[str, int] = {}
    lines: dict[str, int] = {}
    for line, row in read_jsonl_models(path, RelevanceRow, raw):
        if row.cluster == UNMAPPED:
            raise InputError(path, "UNMAPPED is not a cluster and has no relevance", line=line, field="cluster")
        if row.cluster in relevance:
            raise InputError(path, f"cluster {row.cluster!r} repeats line {lines[row.cluster]}",
                             line=line, field="cluster", hint="one adjudicated R(c) per cluster")
        relevance[row.cluster] = row.relevant
        lines[row.cluster] = line
    return relevance


class _Keyed(Protocol):
    @property
    def task(self) -> str: ...
    @property
    def pool(self) -> str: ...
    @property
    def aggregate(self) -> str: ...


KeyedRow = TypeVar("KeyedRow", bound=_Keyed)


def unique_aggregates(path: Path, rows: list[tuple[int, KeyedRow]]) -> list[tuple[int, KeyedRow]]:
    """``rows`` unchanged once no (task, pool, aggregate) repeats; a repeat is an error naming both lines."""
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in rows:
        key = (row.task, row.pool, row.aggregate)
        if key in seen:
            raise InputError(path, f"aggregate {row.aggregate!r} of pool {row.pool!r} repeats line {seen[key]}",
                             line=line, field="aggregate")
        seen[key] = line
    return rows


def read_aggregates(path: Path) -> list[tuple[int, AggregateRow]]:
    """Aggregate rows with their line numbers (checked against the samples by the caller)."""
    return unique_aggregates(path, read_jsonl_models(path, AggregateRow))
