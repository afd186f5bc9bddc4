"""The finding words of the training-data audits: shared by the audits that find, the gate that judges
and the results that carry them, so it sits below all three."""

from __future__ import annotations

from enum import StrEnum


class AuditFinding(StrEnum):
    """What an audit found (the ``finding`` field); not a verdict: a blind control still makes it INVALID."""

    CLEAN = "CLEAN"
    LEAK = "LEAK"
    LOOPS = "LOOPS"
    MISMATCH = "MISMATCH"
    CONTAMINATED = "CONTAMINATED"
