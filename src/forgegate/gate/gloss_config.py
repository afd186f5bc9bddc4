"""The GLOSS gate configuration: category weights, floors, the wall rule, the live-test rule.

This file is the one place the weights live; the battery's allowed categories are
the keys of ``weights``. A config is checked against the battery before anything runs.
"""

from __future__ import annotations

import hashlib
import math
import tomllib
from collections.abc import Collection
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from forgegate.errors import InputError
from forgegate.jsonio import read_bytes_or_input_error


class LiveRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_loops: int = Field(ge=0)
    max_wall_violations: int = Field(ge=0)
    min_correct: int = Field(ge=0)


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    category_floor: float = Field(ge=0, le=1)
    sigma_total_min: float = Field(ge=0, le=1)
    min_items: int = Field(ge=1)
    wall_rule: bool
    weights: dict[str, float]
    live: LiveRule

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> GateConfig:
        total = sum(self.weights.values())
        if not math.isclose(total, 1.0, abs_tol=1e-9):
            raise ValueError(f"weights must sum to 1, they sum to {total:.6f}")
        if any(w <= 0 for w in self.weights.values()):
            raise ValueError("every weight must be positive: no category may be weighted out")
        return self

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.weights)

    def check_battery(self, source: Path | str, categories: Collection[str], n_items: int) -> None:
        """Every configured category must be present (none skipped); the battery must be big enough."""
        missing = [c for c in self.categories if c not in set(categories)]
        if missing:
            raise InputError(source, f"battery has no items in {', '.join(missing)}",
                             hint=f"gate '{self.name}' requires every category; no category may be skipped")
        if n_items < self.min_items:
            raise InputError(source, f"battery has {n_items} items, gate '{self.name}' requires at least "
                             f"{self.min_items}")


def bundled_gate_config_path() -> Path:
    return Path(str(resources.files("forgegate") / "data" / "gates" / "gloss-v2.toml"))


def load_gate_config(path: Path | None = None) -> tuple[GateConfig, str]:
    """The config and the sha256 of its bytes (recorded in results and the lineage)."""
    path = path or bundled_gate_config_path()
    return parse_gate_config(read_bytes_or_input_error(path, what="gate config"), path)


def parse_gate_config(raw: bytes, path: Path | str) -> tuple[GateConfig, str]:
    """A config from its bytes (a file, or the copy a run store keeps); ``path`` names it in errors."""
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(path, f"not valid TOML: {exc}") from None
    try:
        config = GateConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise InputError(path, first["msg"], field=field) from None
    return config, hashlib.sha256(raw).hexdigest()
