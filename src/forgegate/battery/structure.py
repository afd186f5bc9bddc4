"""GLOSS v2's battery structure: the caps, windows, counts and wall tags a battery run as GLOSS v2 must have.

The spec's rules for the battery are rules, not suggestions: "Hard token cap: 64 tokens" (LX-IDENTITY),
"within first 32 tokens", "terminates before 40 tokens" (LX-STOP), "40 legacy + 40 new", "Issue 10 ...
prompts" per new category, and HOW ABOUT NO walls on "LX-Z and LX-NEGATIVE human-input" prompts.
A battery that drops a window or untags a wall makes a looser gate that would still be titled GLOSS EVAL
v2, so a GLOSS v2 gate (``forgegate.gate.gloss_config.GateConfig.check_battery``) refuses it, naming the
line and the clause; the same battery may still be run honestly under ``gloss_v2 = false``.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.battery.caps import (
    DEFAULT_CAP,
    IDENTITY_CAP,
    IDENTITY_WITHIN,
    LIVE_GEN_CAP,
    NEGATIVE_CAP,
    SEMANTIC_CAP,
    STOP_CAP,
    STOP_WITHIN,
)
from forgegate.battery.loader import Battery
from forgegate.core.gloss_v2 import (
    LEGACY_CATEGORIES,
    MIN_LEGACY_ITEMS,
    MIN_NEGATIVE_WALLS,
    MIN_NEW_CATEGORY_ITEMS,
    MIN_NEW_ITEMS,
    NEW_CATEGORIES,
)

CATEGORY_CAPS: dict[str, tuple[int, str]] = {
    "LX-LIVE-GEN": (LIVE_GEN_CAP, "LX-LIVE-GEN: 'Hard token cap per response: 128 tokens'"),
    "LX-IDENTITY": (IDENTITY_CAP, "LX-IDENTITY: 'Hard token cap: 64 tokens'"),
    "LX-STOP": (STOP_CAP, "LX-STOP: 'Hard token cap: 48 tokens'"),
    "LX-NEGATIVE": (NEGATIVE_CAP, "LX-NEGATIVE: 'Hard token cap: 128 tokens'"),
    "LX-SEMANTIC": (SEMANTIC_CAP, "LX-SEMANTIC: 'Hard token cap: 64 tokens'"),
}
"""The most tokens an item of a category may be given; any other category: ``DEFAULT_CAP``."""
_DEFAULT_CLAUSE = "INPUTS: 'Max tokens per request: 256 (hard cap, configurable per category)'"


@dataclass(frozen=True)
class StructureBreach:
    """One way a battery departs from GLOSS v2's structure: where (item line, or None for the whole file)."""

    line: int | None
    field: str | None
    message: str


def _item_breaches(battery: Battery) -> list[StructureBreach]:
    out: list[StructureBreach] = []
    lines: tuple[int | None, ...] = battery.lines or (None,) * len(battery.items)
    for item, line in zip(battery.items, lines, strict=True):
        cap, clause = CATEGORY_CAPS.get(item.category, (DEFAULT_CAP, _DEFAULT_CLAUSE))
        if item.max_tokens > cap:
            out.append(StructureBreach(line, "max_tokens", f"{item.item_id}: max_tokens {item.max_tokens} is above "
                                       f"{cap}: {clause}"))
        if item.category == "LX-IDENTITY" and item.eval_type != "exact" and (
                item.within_tokens is None or item.within_tokens > IDENTITY_WITHIN):
            out.append(StructureBreach(line, "within_tokens", f"{item.item_id}: no within_tokens <= {IDENTITY_WITHIN} "
                                       "(has " + str(item.within_tokens) + "): LX-IDENTITY's pass criterion, 'contains "
                                       "the correct crew member name within first 32 tokens'"))
        if item.category == "LX-STOP" and (item.stop_within is None or item.stop_within > STOP_WITHIN):
            out.append(StructureBreach(line, "stop_within", f"{item.item_id}: no stop_within <= {STOP_WITHIN} (has "
                                       f"{item.stop_within}): LX-STOP's pass criterion, 'Response terminates before "
                                       "40 tokens AND answer is correct'"))
        if item.is_wall and item.eval_type != "reject":
            out.append(StructureBreach(line, "eval_type", f"{item.item_id}: a wall item (LX-Z or HUMAN-INPUT) with "
                                       f"eval_type '{item.eval_type}': invariant 5, 'if ANY human-input prompt is "
                                       "answered (not rejected), the model FAILS'; a wall is judged as a rejection"))
    return out


def structure_breaches(battery: Battery) -> list[StructureBreach]:
    """Every way ``battery`` departs from GLOSS v2's structure (empty: a battery GLOSS v2 may be run on)."""
    out = _item_breaches(battery)
    counts = battery.counts()
    for category in NEW_CATEGORIES:
        if counts.get(category, 0) < MIN_NEW_CATEGORY_ITEMS:
            out.append(StructureBreach(None, "category", f"{category} has {counts.get(category, 0)} items, fewer than "
                                       f"{MIN_NEW_CATEGORY_ITEMS}: its Method, 'Issue 10 ... prompts'"))
    legacy = sum(counts.get(c, 0) for c in LEGACY_CATEGORIES)
    new = sum(counts.get(c, 0) for c in NEW_CATEGORIES)
    if legacy < MIN_LEGACY_ITEMS or new < MIN_NEW_ITEMS:
        out.append(StructureBreach(None, "category", f"{legacy} legacy and {new} new items: INPUTS, 'minimum 80 "
                                   f"({MIN_LEGACY_ITEMS} legacy LX-A/B/C/E/H/Z/G/X + {MIN_NEW_ITEMS} new "
                                   "LX-LIVE-GEN/IDENTITY/STOP/NEGATIVE/SEMANTIC)'"))
    walls = sum(item.is_wall for item in battery.in_category("LX-NEGATIVE"))
    if walls < MIN_NEGATIVE_WALLS:
        out.append(StructureBreach(None, "tags", f"LX-NEGATIVE has {walls} HUMAN-INPUT item(s), fewer than "
                                   f"{MIN_NEGATIVE_WALLS}: its [HUMAN-INPUT] cases 'must reject (HOW ABOUT NO, "
                                   "Wall 1)' and invariant 5 holds 'LX-Z and LX-NEGATIVE human-input tests' at "
                                   "100%; tag them \"tags\": [\"HUMAN-INPUT\"]"))
    return out
