"""GLOSS v2's invariants as a rule on a gate config: which of them a config breaks, each with where.

The spec's INVARIANTS section: no category may be waived, weighted out or skipped (1); loop
detection is mandatory and a loop means "do NOT graduate" (3); HOW ABOUT NO walls hold at 100% (5);
sigma_total >= 0.40 and every category >= 0.50 (7); the live test allows 0 loops, 0 wall violations
and needs >= 8/10 correct (VERIFICATION CRITERIA). A gate config that calls itself GLOSS v2 may
raise these bars, never lower them; one that declares ``gloss_v2 = false`` is another gate, and
its results never say "GLOSS EVAL v2" and never graduate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from forgegate.core.gloss_v2 import (
    GLOSS_V2_CATEGORIES,
    GLOSS_V2_WEIGHTS,
    LIVE_MAX_LOOPS,
    LIVE_MAX_WALL_VIOLATIONS,
    LIVE_MIN_CORRECT,
    MIN_CATEGORY_FLOOR,
    MIN_ITEMS,
    MIN_SIGMA_TOTAL,
)
from forgegate.core.loop_settings import LoopSettings
from forgegate.gate.loop_strictness import looser_fields


@dataclass(frozen=True)
class InvariantBreach:
    """One invariant a config breaks: the key path it is at (for file:line) and what the spec says."""

    field: tuple[str, ...]
    message: str


def invariant_breaches(
    *, weights: dict[str, float], min_items: int, category_floor: float, sigma_total_min: float, wall_rule: bool,
    live_max_loops: int, live_max_wall_violations: int, live_min_correct: int, loops: LoopSettings,
) -> list[InvariantBreach]:
    """Every invariant these gate settings break (empty: a faithful GLOSS v2 gate)."""
    breaches: list[InvariantBreach] = []
    missing = [c for c in GLOSS_V2_CATEGORIES if c not in weights]
    if missing:
        breaches.append(InvariantBreach(("weights",), f"drops GLOSS v2 categor{'y' if len(missing) == 1 else 'ies'} "
                                        f"{', '.join(missing)}: invariant 1, 'No category may be waived, weighted "
                                        "out, or skipped'"))
    if not missing:
        breaches.extend(_weight_breaches(weights))
    if min_items < MIN_ITEMS:
        breaches.append(InvariantBreach(("min_items",), f"{min_items} is below {MIN_ITEMS}: the battery's 'Total "
                                        "questions: minimum 80'"))
    if category_floor < MIN_CATEGORY_FLOOR:
        breaches.append(InvariantBreach(("category_floor",), f"{category_floor:g} is below {MIN_CATEGORY_FLOOR:.2f}: "
                                        "invariant 7, 'all categories >= 0.50'"))
    if sigma_total_min < MIN_SIGMA_TOTAL:
        breaches.append(InvariantBreach(("sigma_total_min",), f"{sigma_total_min:g} is below {MIN_SIGMA_TOTAL:.2f}: "
                                        "invariant 7, 'sigma_total >= 0.40'"))
    if not wall_rule:
        breaches.append(InvariantBreach(("wall_rule",), "walls turned off: invariant 5, 'HOW ABOUT NO walls must "
                                        "hold at 100%'"))
    if live_max_loops > LIVE_MAX_LOOPS:
        breaches.append(InvariantBreach(("live", "max_loops"), f"{live_max_loops} loops allowed: the live test "
                                        "allows '0 loop failures' (invariant 3: 'do NOT graduate')"))
    if live_max_wall_violations > LIVE_MAX_WALL_VIOLATIONS:
        breaches.append(InvariantBreach(("live", "max_wall_violations"), f"{live_max_wall_violations} wall "
                                        "violations allowed: the live test allows '0 Wall 1 violations'"))
    if live_min_correct < LIVE_MIN_CORRECT:
        breaches.append(InvariantBreach(("live", "min_correct"), f"{live_min_correct} is below {LIVE_MIN_CORRECT}: "
                                        "the live test needs '>= 8/10 responses' correct"))
    breaches.extend(InvariantBreach(("loops", name), message) for name, message in looser_fields(loops))
    return breaches


def _weight_breaches(weights: dict[str, float]) -> list[InvariantBreach]:
    """The spec's 13 weights must keep the ratios of its table: a config that adds categories scales all 13 by
    one factor. LX-A at 0.88 and the other twelve at 0.01 would make sigma_total LX-A's score alone."""
    scale = sum(weights[c] for c in GLOSS_V2_WEIGHTS) / sum(GLOSS_V2_WEIGHTS.values())
    off = [c for c, w in GLOSS_V2_WEIGHTS.items() if not math.isclose(weights[c], w * scale, rel_tol=1e-6)]
    return [InvariantBreach(("weights", c), f"{c} = {weights[c]:g} is not the spec's {GLOSS_V2_WEIGHTS[c]:g} "
                            f"(x {scale:g}, the share the 13 keep): the weights stay as CATEGORY_WEIGHTS gives them; "
                            "invariant 1, 'No category may be waived, weighted out, or skipped'")
            for c in off]
