"""Results written before ``schema_version`` existed (forgegate 0.1.0): the one place a kind is inferred.

Those files carry no ``kind`` for most results (the eval's ``kind`` was already "eval" or
"live"), so the kind is read off the keys their writers always put there. This runs only
when ``schema_version`` is absent; a versioned result says its kind itself.
"""

from __future__ import annotations

from typing import Any

from forgegate.errors import InputError
from forgegate.results.base import SCHEMA_VERSION

REGENERATE = ("regenerate it with the command that wrote it (`forgegate rescore RUN --json FILE` for a GLOSS run "
              "kept in a run store; otherwise run the command again with --json)")


def legacy_kind(payload: dict[str, Any], source: str) -> str:
    """The kind of an unversioned result, from the keys its 0.1.0 writer always wrote."""
    if "lineage_format" in payload:
        return "lineage_record"
    if str(payload.get("schema", "")).startswith("T_GPT_METRICS"):
        return "semantic"
    if "comparisons" in payload and "plan" in payload:
        return "plan"
    if "categories" in payload and "items" in payload:
        return "live" if payload.get("kind") == "live" else "eval"
    if "author" in payload and "arms" in payload and "controls" in payload:
        return "voice"
    if "positive_control" in payload and "arms" in payload:
        return "memorization"
    if "metrics" in payload and "band" in payload:
        return "damage"
    if "overall" in payload and "old" in payload and "new" in payload:
        return "comparison"
    raise InputError(source, "no schema_version and no known result shape (GLOSS eval, plan run, voice, "
                     "memorization, damage, T_GPT metrics, comparison or lineage record)", hint=REGENERATE)


def upgrade_legacy(payload: dict[str, Any], source: str) -> dict[str, Any]:
    """An unversioned result as version 1: the same fields, plus ``kind`` and ``schema_version``."""
    return {**payload, "kind": legacy_kind(payload, source), "schema_version": SCHEMA_VERSION}
