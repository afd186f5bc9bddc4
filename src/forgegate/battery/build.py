"""Building a battery file from a LATTICE symbol table: numbering, serialising, writing."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from forgegate.battery.item import BatteryItem
from forgegate.battery.lattice import LatticeTable, load_lattice
from forgegate.battery.loader import default_id
from forgegate.jsonio import write_bytes_atomic

Kind = Literal["battery", "live", "probe"]

PROBE_IDS: tuple[str, ...] = (
    *(f"LX-IDENTITY-{n:02d}" for n in range(1, 11)),
    *(f"LX-STOP-{n:02d}" for n in range(1, 11)),
    *(f"LX-LIVE-GEN-{n:02d}" for n in range(1, 11)),
    "LX-Z-01", "LX-Z-03", "LX-Z-05",
)
"""The training probe: the GLOSS v2 items that break first while a model trains (every identity prompt, which
trigger loops; every stop-token prompt; every open generation) and three walls, with their battery ids, answers
and caps. 33 items, so that a base model looping on about half of them still leaves room to see a shift: the
stop rule (``forgegate.training.stopping``, Fisher's exact test at 1% per probe) sees 15/33 -> 26/33 with one
mode watched, where 11 items could see only 5/11 -> 11/11 and nothing from a base looping on 6."""

OLD_PROBE_IDS: tuple[str, ...] = (
    "LX-IDENTITY-01", "LX-IDENTITY-02", "LX-IDENTITY-05", "LX-IDENTITY-10",
    "LX-STOP-01", "LX-STOP-02", "LX-STOP-05",
    "LX-LIVE-GEN-01", "LX-LIVE-GEN-05", "LX-LIVE-GEN-09",
    "LX-Z-03",
)
"""The 11-item probe of forgegate before issue 37 (a subset of :data:`PROBE_IDS`): benchmarks/bench_probe.py
measures the larger probe's cost against it."""

# Key order of a written line: GLOSS v2's fields first, then the extensions that are set.
_ORDER = ("id", "category", "prompt", "expected", "max_tokens", "eval_type", "within_tokens",
          "stop_within", "require", "forbid", "answer_content", "tags", "case_sensitive", "match", "chat",
          "coherent")


def number_items(items: Sequence[BatteryItem]) -> list[BatteryItem]:
    """Give every item the id ``<category>-<nn>`` it would get by default, in order."""
    per_category: Counter[str] = Counter()
    out: list[BatteryItem] = []
    for item in items:
        per_category[item.category] += 1
        out.append(item.model_copy(update={"id": default_id(item.category, per_category[item.category])}))
    return out


def item_to_json(item: BatteryItem) -> dict[str, Any]:
    """One line's object: spec fields always, extension fields only when they differ from the default."""
    dumped = item.model_dump(mode="json")
    defaults = {name: field.get_default(call_default_factory=True)
                for name, field in BatteryItem.model_fields.items() if not field.is_required()}
    always = {"id", "category", "prompt", "expected", "max_tokens", "eval_type"}
    return {key: dumped[key] for key in _ORDER
            if key in always or dumped[key] != defaults.get(key)}


def dumps_battery(items: Sequence[BatteryItem]) -> bytes:
    """The JSONL bytes of ``items``: UTF-8, one object a line, glyphs unescaped, trailing newline."""
    lines = [json.dumps(item_to_json(item), ensure_ascii=False) for item in items]
    return ("\n".join(lines) + "\n").encode("utf-8")


def build_items(table: LatticeTable, kind: Kind) -> list[BatteryItem]:
    """The numbered items of the GLOSS v2 battery (``battery``), the 10-task live test (``live``), or the
    training probe (``probe``: :data:`PROBE_IDS` picked from the battery, ids unchanged)."""
    if kind == "probe":
        by_id = {item.id: item for item in build_items(table, "battery")}
        return [by_id[item_id] for item_id in PROBE_IDS]
    from forgegate.battery.build_behaviour import new_items
    from forgegate.battery.build_lattice import legacy_items
    from forgegate.battery.build_live import live_items

    makers: dict[Kind, list[Callable[[LatticeTable], list[BatteryItem]]]] = {
        "battery": [legacy_items, new_items],
        "live": [live_items],
    }
    return number_items([item for make in makers[kind] for item in make(table)])


def build_battery_file(symbols: Path, out: Path, kind: Kind = "battery") -> list[BatteryItem]:
    """Build from the symbol table at ``symbols`` and write the JSONL to ``out`` atomically."""
    items = build_items(load_lattice(symbols), kind)
    write_bytes_atomic(out, dumps_battery(items))
    return items
