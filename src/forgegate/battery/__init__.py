"""Batteries: the item schema, loading with file:line errors, the LATTICE table and the GLOSS v2 builder.

The builder and the LATTICE table (pydantic models a battery that is only loaded never uses) are imported
when first used, so that an eval of a battery file loads neither (issue 45)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forgegate.battery.item import BatteryItem, EvalType, Tag
from forgegate.battery.loader import Battery, default_id, load_battery
from forgegate.battery.resources import (
    bundled_battery_path,
    bundled_lattice_path,
    bundled_live_test_path,
    bundled_probe_battery_path,
)

if TYPE_CHECKING:
    from forgegate.battery.build import build_battery_file, build_items, dumps_battery
    from forgegate.battery.lattice import LatticeSymbol, LatticeTable, load_lattice

_HOME: dict[str, str] = {
    "build_battery_file": "forgegate.battery.build",
    "build_items": "forgegate.battery.build",
    "dumps_battery": "forgegate.battery.build",
    "LatticeSymbol": "forgegate.battery.lattice",
    "LatticeTable": "forgegate.battery.lattice",
    "load_lattice": "forgegate.battery.lattice",
}

__all__ = [
    "Battery",
    "BatteryItem",
    "EvalType",
    "LatticeSymbol",
    "LatticeTable",
    "Tag",
    "build_battery_file",
    "build_items",
    "bundled_battery_path",
    "bundled_lattice_path",
    "bundled_live_test_path",
    "bundled_probe_battery_path",
    "default_id",
    "dumps_battery",
    "load_battery",
    "load_lattice",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
