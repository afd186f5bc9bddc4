"""Turning instrument outcomes into a verdict: PASS / FAIL / HOLD / INCOMPLETE / INVALID, with every reason.

The verdict words and how they combine live in ``forgegate.core.verdict``; this package holds the rules.
"""
