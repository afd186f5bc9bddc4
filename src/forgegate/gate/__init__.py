"""Turning scores into a verdict: PASS / FAIL / HOLD / INCOMPLETE / INVALID, with every reason."""

from forgegate.gate.verdict import EXIT_BAD_INPUT, Gate, Reason, Verdict

__all__ = ["EXIT_BAD_INPUT", "Gate", "Reason", "Verdict"]
