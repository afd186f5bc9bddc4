"""Every value a result's ``kind`` takes: the one list (the models live in ``forgegate.results``).

Here, below every layer, so the CLI's ``--help`` can name the kinds without importing a model.
"""

from __future__ import annotations

RESULT_KINDS: tuple[str, ...] = (
    "eval", "live", "plan", "voice", "memorization", "damage", "semantic", "comparison", "lineage_record", "probe",
    "loop_audit", "leak_audit", "format_audit", "contamination_audit", "checkpoint_ties", "fixture_build",
    "battery_check", "graduation", "semantic_relevance", "semantic_validation",
)
"""``live`` shares ``eval``'s model and schema; every other kind has its own."""

AXES: tuple[str, str, str] = ("voice", "memorization", "damage")
"""The three axes of the arm gate (``forgegate.gate.arms``): each is an instrument name, a result kind, and a
field of a plan comparison, under this one name."""
