"""Per-response instruments: eval-type rules, loop detection, stop and wall checks, failure labels."""

from forgegate.checks.loops import (
    LoopFinding,
    LoopKind,
    detect_loop,
    query_symbol_of,
    tokenize_for_loops,
)
from forgegate.checks.match import normalise
from forgegate.checks.score import AnswerScore, exact_form, has_lattice_form, rejection_check, score_item
from forgegate.core.failure_modes import FailureModeSpec, load_failure_modes
from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS, LoopSettings

__all__ = [
    "FailureModeSpec",
    "AnswerScore",
    "LoopFinding",
    "LoopKind",
    "LoopSettings",
    "SPEC_LOOP_SETTINGS",
    "detect_loop",
    "exact_form",
    "has_lattice_form",
    "load_failure_modes",
    "normalise",
    "query_symbol_of",
    "rejection_check",
    "score_item",
    "tokenize_for_loops",
]
