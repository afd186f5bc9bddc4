"""Scoring for the side-by-side tasks: correct when the answer contains one of the item's expected strings.

The same rule as inspect_ai's `includes()` (case-insensitive substring, any target), so the two plain tools
score alike; lm-evaluation-harness's built-in `exact_match` would compare the whole answer to one string.
"""

from typing import Any


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """1.0 when the generated answer contains any expected string (case-insensitive), else 0.0."""
    answer = results[0].casefold()
    return {"acc": float(any(target.casefold() in answer for target in doc["targets"]))}
