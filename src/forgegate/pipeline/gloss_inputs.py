"""A GLOSS run's inputs, loaded one way for an eval and a plan: the gate config (its bytes read once, then
parsed, hashed and kept as read) and the battery checked against it.

The eval session (``eval_session.prepare_session``) and a plan's gloss instrument (``plan_checks.gloss_inputs``)
both call these, so a gate config means the same thing, with the same identity, on either entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.battery.loader import parse_battery
from forgegate.core.match_rule import MATCH_RULE
from forgegate.gate.gloss_config import GateConfig, bundled_gate_config_path, parse_gate_config
from forgegate.jsonio import read_bytes_or_input_error
from forgegate.store import StoredGateConfig


@dataclass(frozen=True)
class GateConfigInput:
    """A gate config as parsed, and as the store keeps it: its path, the sha256 of the bytes read and those
    same bytes (one read: a second could see a file changed in between, a run whose stored config and sha
    disagree)."""

    config: GateConfig
    stored: StoredGateConfig

    @property
    def sha256(self) -> str:
        return self.stored.sha256


def read_gate_config(path: Path | None, raw: bytes | None = None) -> GateConfigInput:
    """The one gate-config load: ``path`` None is the bundled GLOSS v2 config; ``raw`` the bytes already read
    (a plan's lock check read and hashed them), otherwise the file is read here, once."""
    path = path or bundled_gate_config_path()
    if raw is None:
        raw = read_bytes_or_input_error(path, what="gate config")
    config, sha = parse_gate_config(raw, path)
    return GateConfigInput(config, StoredGateConfig(path=str(path), sha256=sha, toml=raw.decode("utf-8"),
                                                    match_rule=MATCH_RULE))


def stored_gate_config(stored: StoredGateConfig, label: str) -> GateConfigInput:
    """The gate config a run store kept (its bytes as read at the run's start), loaded the same way; ``label``
    names the copy in errors (``RUN.sqlite (stored gate config)``)."""
    return read_gate_config(Path(label), stored.toml.encode("utf-8"))


def read_gloss_battery(path: Path | None, config: GateConfig, raw: bytes | None = None) -> Battery:
    """The battery (``path`` None: the bundled GLOSS v2), every item in one of the config's categories and every
    category present (``GateConfig.check_battery``); ``raw``: its bytes already read."""
    path = Path(path or bundled_battery_path())
    battery = (load_battery(path, categories=config.categories) if raw is None
               else parse_battery(path, raw, categories=config.categories))
    config.check_battery(battery)
    return battery


@dataclass(frozen=True)
class GlossInputs:
    """What scoring an arm's stored answers needs: the battery, the gate config, the seed it was asked with."""

    battery: Battery
    gate: GateConfigInput
    seed: int

    @property
    def config(self) -> GateConfig:
        return self.gate.config

    @property
    def config_sha256(self) -> str:
        return self.gate.sha256
