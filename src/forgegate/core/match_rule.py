"""The id of the rule answers are matched by: part of a gate config's identity, read by checks, gate and pipeline."""

from __future__ import annotations

MATCH_RULE = "word-boundary-1"
"""The id of the current matching rule; changing what ``checks.match.find_spans`` matches changes it."""
LEGACY_MATCH_RULE = "substring"
"""The rule runs scored before word matching existed were gated under."""
