"""``forgegate battery check --json``: a valid battery's identity and counts, as a registered result kind.

Built from :class:`forgegate.battery.Battery` in one place (:meth:`BatteryCheckResult.of`); the JSON is this
model's dump, the fields the command wrote before it had a kind, plus ``kind`` and ``schema_version``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from forgegate.results.base import SCHEMA_VERSION, SchemaVersion, Strict

if TYPE_CHECKING:
    from forgegate.battery import Battery


class BatteryCheckResult(Strict):
    """A battery that loaded and validated: where it is, the sha256 of its bytes, and its items per category."""

    kind: Literal["battery_check"]
    """Always ``battery_check``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    path: str
    """The battery file checked."""
    sha256: str
    """sha256 of the battery's bytes, as every eval result records it."""
    items: int
    """How many items the battery holds."""
    categories: dict[str, int]
    """Items per category, in order of first appearance."""

    @classmethod
    def of(cls, battery: Battery) -> BatteryCheckResult:
        return cls(kind="battery_check", schema_version=SCHEMA_VERSION, path=str(battery.path),
                   sha256=battery.sha256, items=len(battery.items), categories=battery.counts())
