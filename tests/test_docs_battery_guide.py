"""Issue 39: docs/guides/battery.md's battery and gate snippets work together as copied (the gate had no
``gloss_v2 = false`` and the battery showed 2 of its 5 lines, so a copy of either exited 2)."""

from __future__ import annotations

import re
from pathlib import Path

from forgegate.battery import load_battery
from forgegate.gate.gloss_config import load_gate_config

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "battery.md"


def block(text: str, lang: str) -> str:
    found = re.search(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S)
    assert found, f"no {lang} block on the page"
    return found.group(1)


def test_the_guides_battery_and_gate_load_together_as_copied(tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    (tmp_path / "battery.jsonl").write_text(block(text, "json"), encoding="utf-8")
    (tmp_path / "gate.toml").write_text(block(text, "toml"), encoding="utf-8")
    config, _sha = load_gate_config(tmp_path / "gate.toml")  # a gate that is not GLOSS v2 must say so
    battery = load_battery(tmp_path / "battery.jsonl", categories=config.categories)
    config.check_battery(battery)
