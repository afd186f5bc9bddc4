"""The battery prompts an audit compares against a corpus, read through the battery loader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.audit.wordmatch import nfc
from forgegate.battery import BatteryItem, load_battery
from forgegate.errors import InputError


@dataclass(frozen=True)
class BatteryPrompt:
    """What the audits need of one battery item."""

    item_id: str
    category: str
    prompt: str
    expected: tuple[str, ...]
    chat: bool


def load_battery_prompts(path: Path) -> list[BatteryPrompt]:
    """The battery's items via ``forgegate.battery.load_battery`` (strict schema, ids filled)."""
    path = Path(path)
    items = _load_items(path)
    if not items:
        raise InputError(path, "the battery has no items", hint="one JSON object per line")
    return [BatteryPrompt(item_id, item.category, nfc(item.prompt),
                          tuple(nfc(e) for e in item.expected_list), item.chat)
            for item_id, item in items]


def _load_items(path: Path) -> list[tuple[str, BatteryItem]]:
    battery = load_battery(path)
    return [(item.item_id, item) for item in battery.items]
