"""Each battery's track record in a lineage: how often its PASS was followed by a live PASS, and what slipped through.

GLOSS v2 names the gap itself: EVAL_FALSE_POSITIVE, "[GAP — systematic method to detect eval/live mismatch
not yet implemented]". The lineage holds every decision with the battery's sha256, its gate and the live
test's gate, so the mismatch is counted here per battery, and ``forgegate lineage`` shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.verdict import Gate
from forgegate.lineage.record import Lineage


@dataclass(frozen=True)
class BatteryTrackRecord:
    """One battery's record in a lineage (by the sha256 of its bytes)."""

    battery_sha256: str
    decisions: int
    battery_passes: int
    """Decisions whose battery gate was PASS."""
    live_passes: int
    """Of those, how many were followed by a live PASS."""
    slipped: tuple[str, ...]
    """The versions that passed this battery and failed the live test (EVAL_FALSE_POSITIVE)."""

    def line(self) -> str:
        """One sentence for the terminal and Markdown lineage."""
        head = (f"battery {self.battery_sha256[:16]}…: {self.decisions} decision(s), battery PASS {self.battery_passes}"
                f", followed by a live PASS {self.live_passes}/{self.battery_passes}")
        if not self.slipped:
            return head + ", none slipped through"
        return (head + f"; slipped through (battery PASS, live FAIL): {', '.join(self.slipped)}: marked "
                "EVAL_FALSE_POSITIVE, no version graduates on it (GLOSS v2: 'Fix the eval, not the graduation "
                "criteria')")


def track_records(lineage: Lineage) -> list[BatteryTrackRecord]:
    """Every battery the lineage used, in order of first use."""
    records = [r for _, r in lineage.records]
    out = []
    for sha in dict.fromkeys(r.battery_sha256 for r in records):
        mine = [r for r in records if r.battery_sha256 == sha]
        passed = [r for r in mine if r.battery_gate == Gate.PASS]
        out.append(BatteryTrackRecord(
            battery_sha256=sha, decisions=len(mine), battery_passes=len(passed),
            live_passes=sum(r.live_gate == Gate.PASS for r in passed),
            slipped=tuple(r.version for r in passed if r.live_gate == Gate.FAIL)))
    return out
