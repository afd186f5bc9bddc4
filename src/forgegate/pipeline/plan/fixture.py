"""A locked plan's fixture as prompts: a built fixture JSONL or a battery, from the bytes the lock check hashed.

Its own module so that both generation and the lock-time checks (``plan_quality``) read the fixture one way
without importing each other.
"""

from __future__ import annotations

from pathlib import Path

from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.battery.loader import parse_battery
from forgegate.fixture.builder import load_fixture
from forgegate.plan import LockedPlan, is_bundled
from forgegate.run import PromptItem, battery_prompt


def fixture_battery(locked: LockedPlan) -> Battery | None:
    """The battery the fixture names (bundled or a path), or None for a fixture JSONL."""
    loaded = locked.loaded
    name = loaded.plan.fixture.battery
    if name is None:
        return None
    if is_bundled(name):
        return load_battery(Path(bundled_battery_path()))
    return parse_battery(loaded.resolve(name), locked.input_bytes(name))  # the bytes the plan hash covers


def fixture_items(locked: LockedPlan) -> list[PromptItem]:
    """The fixture's prompts: a built fixture JSONL, or a battery's items (with their own caps)."""
    loaded = locked.loaded
    fixture = loaded.plan.fixture
    if fixture.path is not None:
        items = load_fixture(loaded.resolve(fixture.path), locked.input_bytes(fixture.path))  # read once
        return [PromptItem(i.id, i.prompt) for i in items]
    battery = fixture_battery(locked)
    assert battery is not None
    return [battery_prompt(item) for item in battery.items]
