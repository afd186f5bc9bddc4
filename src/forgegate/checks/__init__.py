"""Per-response instruments: eval-type rules, loop detection, stop and wall checks, failure labels."""

from forgegate.checks.loops import (
    LOOP_MODES,
    LoopFinding,
    LoopKind,
    detect_loop,
    query_symbol_of,
    tokenize_for_loops,
)
from forgegate.checks.modes import FailureMode, load_failure_modes, signatures_present
from forgegate.checks.score import ItemScore, exact_form, has_lattice_form, normalise, rejection_check, score_item

__all__ = [
    "LOOP_MODES",
    "FailureMode",
    "ItemScore",
    "LoopFinding",
    "LoopKind",
    "detect_loop",
    "exact_form",
    "has_lattice_form",
    "load_failure_modes",
    "normalise",
    "query_symbol_of",
    "rejection_check",
    "score_item",
    "signatures_present",
    "tokenize_for_loops",
]
