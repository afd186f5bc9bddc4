"""Reading eval result JSON (the ``forgegate eval --json`` contract) into typed run scores.

Only the fields a paired comparison or a lineage record needs are validated; the
contract may grow, so unknown fields are ignored here (forgegate wrote the file,
not the user). A missing required field is an InputError naming the file and field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.jsonio import read_text_or_input_error, validation_to_input_error


class ItemFields(BaseModel):
    """What one scored request is to a paired comparison: read from a result, kept in a lineage record."""

    model_config = ConfigDict(frozen=True)

    id: str
    category: str
    seed: int | None
    score: float | None
    """None when the request errored (finish "error"): never a zero, never a pass."""
    passed: bool | None
    finish: str
    failure_modes: list[str] = Field(default_factory=list)


class ResultItem(ItemFields):
    """One scored request of a run: an item of the battery under one seed."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    failure_mode: str | None = None

    @property
    def key(self) -> tuple[str, int | None]:
        """Items pair across runs by (item id, seed)."""
        return (self.id, self.seed)

    @property
    def errored(self) -> bool:
        return self.finish == "error" or self.score is None

    @property
    def all_failure_modes(self) -> frozenset[str]:
        modes = set(self.failure_modes)
        if self.failure_mode:
            modes.add(self.failure_mode)
        return frozenset(modes)


class BatteryRef(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str | None = None
    sha256: str
    items: int | None = None


class GateConfigRef(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str
    sha256: str


class CategoryScore(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    score: float | None
    n: int | None = None
    passed: int | bool | None = None
    gate: str | None = None


class RunResult(BaseModel):
    """The parts of an eval result a comparison or a lineage record rests on."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    model: str | None
    backend: str | None = None
    run_id: str | None
    battery: BatteryRef
    gate_config: GateConfigRef
    gate: Gate
    sigma_total: float | None
    categories: dict[str, CategoryScore]
    failure_modes: list[str]
    model_digest: str | None = None
    forgegate_version: str | None = None
    items: list[ResultItem]

    @property
    def all_failure_modes(self) -> frozenset[str]:
        """The run's failure modes: its own list united with every item's labels."""
        modes = set(self.failure_modes)
        for item in self.items:
            modes |= item.all_failure_modes
        return frozenset(modes)


def parse_result(payload: dict[str, Any], source: Path | str) -> RunResult:
    """Validate an eval result dict; ``source`` names it in errors (a path or a label)."""
    try:
        result = RunResult.model_validate(payload)
    except ValidationError as exc:
        error = validation_to_input_error(Path(str(source)), None, exc)
        error.hint = "expected the JSON written by `forgegate eval --json`"
        raise error from None
    seen: set[tuple[str, int | None]] = set()
    for item in result.items:
        if item.key in seen:
            raise InputError(source, f"item '{item.id}' with seed {item.seed} appears twice",
                             field="items", hint="one result per (item id, seed) is expected")
        seen.add(item.key)
    return result


def load_result(path: Path) -> RunResult:
    """Read and validate an eval result JSON file."""
    path = Path(path)
    text = read_text_or_input_error(path, hint="pass the file written by `forgegate eval --json`")
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"bad JSON: {exc.msg}", line=exc.lineno) from None
    if not isinstance(payload, dict):
        raise InputError(path, f"expected a JSON object, got {type(payload).__name__}")
    return parse_result(payload, path)
