"""Results written before ``schema_version`` existed (forgegate 0.1.0): the one place a kind is inferred.

Those files carry no ``kind`` for most results (the eval's ``kind`` was already "eval" or
"live"), so the kind is read off the keys their writers always put there. This runs only
when ``schema_version`` is absent; a versioned result says its kind itself.
"""

from __future__ import annotations

from typing import Any

from forgegate.errors import InputError
from forgegate.results.base import SCHEMA_VERSION, schema_version_of

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


def _review_object(word: Any) -> Any:
    """A version-1 item review (the bare word) as version 2 writes it: provenance unknown, no history."""
    if not isinstance(word, str):
        return word  # None (no review) or already an object: left for the model to judge
    return {"decision": word, "reviewer": None, "decided_at": None, "note": None, "history": []}


def upgrade_v1(payload: dict[str, Any]) -> dict[str, Any]:
    """A version-1 result of a kind that has moved on (``KIND_VERSIONS``) as its current version.

    Only the GLOSS kinds moved (version 2: an item's ``review`` is an object); their items are
    rewritten, nothing else changes. Any other kind is returned as it came.
    """
    kind = payload.get("kind")
    if payload.get("schema_version") != SCHEMA_VERSION or schema_version_of(kind) == SCHEMA_VERSION:
        return payload
    upgraded = {**payload, "schema_version": schema_version_of(kind)}

    def items(body: Any) -> Any:
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            return body
        return {**body, "items": [{**i, "review": _review_object(i.get("review"))} if isinstance(i, dict) else i
                                  for i in body["items"]]}

    if kind == "plan":
        gloss = payload.get("gloss")
        if isinstance(gloss, dict) and isinstance(gloss.get("arms"), dict):
            upgraded["gloss"] = {**gloss, "arms": {name: items(arm) for name, arm in gloss["arms"].items()}}
        return upgraded
    rewritten: dict[str, Any] = items(upgraded)
    return rewritten
