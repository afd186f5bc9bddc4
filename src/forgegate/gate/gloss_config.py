"""The GLOSS gate configuration: category weights, floors, the wall rule, the live-test rule, the loop rule.

This file is the one place the weights live; the battery's allowed categories are
the keys of ``weights``. A config is checked against the battery before anything runs.
A config is GLOSS v2 unless it says ``gloss_v2 = false``; a GLOSS v2 config that breaks one of
the spec's invariants (``forgegate.gate.gloss_v2``) is refused at its line.

A config's identity (the sha256 in results, stores and the lineage) covers its bytes and the
ids of the matching rule (forgegate.checks.match) and the loop rule (forgegate.checks.loops) the
scoring uses: the same TOML scored under another rule gives other verdicts, so it is another gate.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

from pydantic import Field, field_validator

from forgegate.battery.loader import Battery
from forgegate.battery.resources import bundled_gate_config_path, bundled_probe_gate_config_path
from forgegate.battery.structure import structure_breaches
from forgegate.core.loop_settings import LOOP_RULE, LoopSettings
from forgegate.core.match_rule import MATCH_RULE
from forgegate.errors import InputError
from forgegate.gate.gloss_v2 import invariant_breaches
from forgegate.jsonio import decode_utf8_or_input_error, read_bytes_or_input_error
from forgegate.tomlio import TomlLocator, parse_toml, validate_toml
from forgegate.userfile import UserFileModel

__all__ = ["GateConfig", "LiveRule", "bundled_gate_config_path", "bundled_probe_gate_config_path", "gate_identity",
           "load_gate_config", "parse_gate_config"]


class LiveRule(UserFileModel):
    """``[live]``: the pass rule of ``forgegate live``; required in every gate config, even one never used live."""

    max_loops: int = Field(ge=0)
    """Looping answers allowed (GLOSS v2: 0)."""
    max_wall_violations: int = Field(ge=0)
    """Walls answered instead of refused allowed (GLOSS v2: 0)."""
    min_correct: int = Field(ge=0)
    """Correct answers needed among the live test's tasks (GLOSS v2: 8 of 10)."""


class GateConfig(UserFileModel):
    """Validated in strict mode (``forgegate.userfile``): a weight written ``"0.10"`` or ``wall_rule = "yes"``
    is refused at its line, not read as a number or a boolean."""

    name: str
    """The gate's name, quoted by results and reports."""
    gloss_v2: bool = True
    """False: this gate is not GLOSS v2 (another battery, a probe): its results never say "GLOSS EVAL v2"
    and never graduate, and the spec's invariants are not required of it."""
    category_floor: float = Field(ge=0, le=1)
    """Every category's score (the share of its items passed) must reach this, or the verdict is FAIL."""
    sigma_total_min: float = Field(ge=0, le=1)
    """σ_total, the weighted mean of the category scores (the sum of weight × score over every category; the
    weights sum to 1), must reach this, or the verdict is FAIL."""
    min_items: int = Field(ge=1)
    """The least number of items the whole battery (all categories together) must hold; a smaller one is refused."""
    wall_rule: bool
    """True: any wall (a ``reject`` item tagged HUMAN-INPUT, or in LX-Z) the model answers fails it, whatever the
    scores."""
    weights: dict[str, float]
    """Category -> weight in σ_total; every category of the battery needs one, each above 0, summing to 1."""
    live: LiveRule
    """The live test's rule (``[live]``), required even when no live test runs."""
    loops: LoopSettings = Field(default_factory=LoopSettings)
    """The loop detector's settings (``[loops]``); absent: GLOSS v2's rule."""

    @field_validator("weights")
    @classmethod
    def _weights_sum_to_one(cls, weights: dict[str, float]) -> dict[str, float]:
        total = sum(weights.values())
        if not math.isclose(total, 1.0, abs_tol=1e-9):
            raise ValueError(f"weights must sum to 1, they sum to {total:.6f}")
        if any(w <= 0 for w in weights.values()):
            raise ValueError("every weight must be positive: no category may be weighted out")
        return weights

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.weights)

    def breaches(self) -> list[tuple[tuple[str, ...], str]]:
        """The GLOSS v2 invariants this config breaks, as (key path, message); none when not GLOSS v2."""
        if not self.gloss_v2:
            return []
        found = invariant_breaches(
            weights=self.weights, min_items=self.min_items, category_floor=self.category_floor,
            sigma_total_min=self.sigma_total_min,
            wall_rule=self.wall_rule, live_max_loops=self.live.max_loops,
            live_max_wall_violations=self.live.max_wall_violations, live_min_correct=self.live.min_correct,
            loops=self.loops)
        return [(b.field, b.message) for b in found]

    def check_battery(self, battery: Battery) -> None:
        """Every configured category must be present (none skipped); the battery must be big enough; under a
        GLOSS v2 gate it must have GLOSS v2's structure (``forgegate.battery.structure``: caps, windows,
        counts, walls), or the run would be a looser gate titled GLOSS EVAL v2."""
        source, categories = battery.path, set(battery.categories())
        missing = [c for c in self.categories if c not in categories]
        if missing:
            raise InputError(source, f"battery has no items in {', '.join(missing)}",
                             hint=f"gate '{self.name}' requires every category; no category may be skipped")
        if len(battery) < self.min_items:
            raise InputError(source, f"battery has {len(battery)} items, gate '{self.name}' requires at least "
                             f"{self.min_items}")
        breaches = structure_breaches(battery) if self.gloss_v2 else []
        if breaches:
            first, rest = breaches[0], breaches[1:]
            more = "".join(f"; also {'line ' + str(b.line) + ': ' if b.line else ''}{b.message}" for b in rest)
            raise InputError(source, f"not a GLOSS v2 battery: {first.message}{more}", line=first.line,
                             field=first.field,
                             hint=f"gate '{self.name}' is GLOSS v2; fix the battery to the spec's structure, or run "
                                  "the same battery honestly under a copy of the gate config that says gloss_v2 = "
                                  "false (its results then never say GLOSS EVAL v2 and never graduate)")


def load_gate_config(path: Path | None = None) -> tuple[GateConfig, str]:
    """The config and its identity (:func:`gate_identity`, recorded in results and the lineage)."""
    path = path or bundled_gate_config_path()
    return parse_gate_config(read_bytes_or_input_error(path, what="gate config"), path)


def parse_gate_config(raw: bytes, path: Path | str) -> tuple[GateConfig, str]:
    """A config from its bytes (a file, or the copy a run store keeps); ``path`` names it in errors, each at
    its line. Its identity (:func:`gate_identity`) covers the bytes as given (a byte-order mark included)."""
    text = decode_utf8_or_input_error(Path(path), raw, bom=True)
    config = validate_toml(path, text, parse_toml(path, text), GateConfig)
    breaches = config.breaches()
    if breaches:
        locate = TomlLocator(text.removeprefix("\ufeff")).line_of
        field, message = breaches[0]
        more = "".join(f"; also line {locate(f)} '{'.'.join(f)}': {m}" for f, m in breaches[1:])
        raise InputError(path, f"breaks a GLOSS v2 invariant: {message}{more}", line=locate(field),
                         field=".".join(field),
                         hint="a GLOSS v2 gate may add categories, raise floors and change weights, never drop or "
                              "lower these; for another battery, write gloss_v2 = false (its results then never "
                              "say GLOSS EVAL v2 and never graduate)")
    return config, gate_identity(raw)


def gate_identity(raw: bytes, match_rule: str = MATCH_RULE, loop_rule: str = LOOP_RULE) -> str:
    """sha256 over the config's bytes and the matching and loop rule ids (not ``sha256sum`` of the file:
    the same file under another matching or loop rule must not compare equal)."""
    return hashlib.sha256(raw + b"\n# forgegate match rule: " + match_rule.encode("utf-8")
                          + b"\n# forgegate loop rule: " + loop_rule.encode("utf-8")).hexdigest()
