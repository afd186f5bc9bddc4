"""The battery prompts an audit compares against a corpus, read through the battery loader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.audit.wordmatch import nfc
from forgegate.battery import load_battery
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
    items = load_battery(path).items
    if not items:
        raise InputError(path, "the battery has no items", hint="one JSON object per line")
    return [BatteryPrompt(item.item_id, item.category, nfc(item.prompt),
                          tuple(nfc(e) for e in item.expected_list), item.chat)
            for item in items]
