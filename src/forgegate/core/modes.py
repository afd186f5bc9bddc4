"""The failure-mode names: one enum that every check, gate rule and report reads.

What each mode means, its signature text and the numbers its detector reads are data
(``forgegate/data/failure_modes.toml``); the names themselves live here so that code never
spells them as string literals.
"""

from __future__ import annotations

from enum import StrEnum


class FailureMode(StrEnum):
    IDENTITY_LOOP = "IDENTITY_LOOP"
    RUNAWAY_LOOP = "RUNAWAY_LOOP"
    STOP_FAILURE = "STOP_FAILURE"
    WALL_COLLAPSE = "WALL_COLLAPSE"
    STYLE_SUBSTANCE = "STYLE_SUBSTANCE"
    EVAL_FALSE_POSITIVE = "EVAL_FALSE_POSITIVE"
    EVAL_FALSE_NEGATIVE = "EVAL_FALSE_NEGATIVE"
    CORPUS_LOOP_INJECTION = "CORPUS_LOOP_INJECTION"


LOOP_MODES: frozenset[FailureMode] = frozenset({FailureMode.RUNAWAY_LOOP, FailureMode.IDENTITY_LOOP})
"""The modes that mean "the model looped"; the live test allows none of them."""
