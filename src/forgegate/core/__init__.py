"""The records every layer shares and nothing else: request, completion, stored answer, failure modes,
verdict words and how they combine, the numeric rules several layers check, the version.

It imports nothing of forgegate's own (docs/architecture.md).
"""

from forgegate.core.limits import CONFIRMATORY_MIN_SAMPLES
from forgegate.core.modes import LOOP_MODES, FailureMode
from forgegate.core.records import Completion, FinishReason, GenerationRequest, StoredResponse, TokenSource
from forgegate.core.verdict import EXIT_BAD_INPUT, GATE_ORDER, Gate, Reason, Verdict, worst_gate
from forgegate.core.version import __version__

__all__ = [
    "CONFIRMATORY_MIN_SAMPLES", "EXIT_BAD_INPUT", "GATE_ORDER", "LOOP_MODES", "Completion", "FailureMode",
    "FinishReason", "Gate", "GenerationRequest", "Reason", "StoredResponse", "TokenSource", "Verdict",
    "__version__", "worst_gate",
]
