"""Where the bundled battery, live test, LATTICE symbol table and gate configs lie inside the installed package."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _package_file(*parts: str) -> Path:
    resource = files("forgegate").joinpath("data", *parts)
    path = Path(str(resource))
    if not path.is_file():
        raise FileNotFoundError(f"forgegate package data missing: {path} (reinstall forgegate)")
    return path


def bundled_battery_path() -> Path:
    """The GLOSS v2 battery built from the bundled LATTICE table (``data/batteries/gloss-v2.jsonl``)."""
    return _package_file("batteries", "gloss-v2.jsonl")


def bundled_live_test_path() -> Path:
    """GLOSS v2's 10-task live functional test (``data/batteries/gloss-v2-live.jsonl``)."""
    return _package_file("batteries", "gloss-v2-live.jsonl")


def bundled_probe_battery_path() -> Path:
    """The training probe (``data/batteries/gloss-v2-probe.jsonl``): 33 GLOSS v2 items, probed at each checkpoint."""
    return _package_file("batteries", "gloss-v2-probe.jsonl")


def bundled_lattice_path() -> Path:
    """The canonical LATTICE symbol table the bundled battery is built from (``data/lattice.toml``)."""
    return _package_file("lattice.toml")


def bundled_gate_config_path() -> Path:
    """GLOSS v2's gate config (``data/gates/gloss-v2.toml``): the categories' weights and floors, walls, loops."""
    return _package_file("gates", "gloss-v2.toml")


def bundled_probe_gate_config_path() -> Path:
    """The training probe's gate (``data/gates/gloss-v2-probe.toml``): GLOSS v2's rules with weights for the probe's
    four categories. A path, not a parsed config, so the training loop names it without importing ``gate/``."""
    return _package_file("gates", "gloss-v2-probe.toml")
