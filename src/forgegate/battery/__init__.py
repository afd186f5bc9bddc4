"""Batteries: the item schema, loading with file:line errors, the LATTICE table and the GLOSS v2 builder."""

from forgegate.battery.build import build_battery_file, build_items, dumps_battery
from forgegate.battery.item import BatteryItem, EvalType, Tag
from forgegate.battery.lattice import LatticeSymbol, LatticeTable, load_lattice
from forgegate.battery.loader import Battery, default_id, load_battery
from forgegate.battery.resources import (
    bundled_battery_path,
    bundled_lattice_path,
    bundled_live_test_path,
    bundled_probe_battery_path,
)

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
