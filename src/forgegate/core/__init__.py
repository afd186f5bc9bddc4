"""The records every layer shares and nothing else: request, completion, stored answer, failure modes,
verdict words and how they combine, the numeric rules several layers check, the version.

It imports nothing of forgegate's own (docs/architecture.md). Its names load on first use, so a light
module (``forgegate.core.limits``, read by the CLI's option table) does not pay for pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.core.limits import CONFIRMATORY_MIN_SAMPLES
    from forgegate.core.modes import LOOP_MODES, FailureMode
    from forgegate.core.records import (
        Completion,
        FinishReason,
        GenerationRequest,
        StoredResponse,
        StreamStop,
        TokenSource,
    )
    from forgegate.core.verdict import EXIT_BAD_INPUT, GATE_ORDER, Gate, Reason, Verdict, worst_gate
    from forgegate.core.version import __version__

_HOMES = {
    "CONFIRMATORY_MIN_SAMPLES": "limits", "LOOP_MODES": "modes", "FailureMode": "modes", "Completion": "records",
    "FinishReason": "records", "GenerationRequest": "records", "StoredResponse": "records", "StreamStop": "records",
    "TokenSource": "records",
    "EXIT_BAD_INPUT": "verdict", "GATE_ORDER": "verdict", "Gate": "verdict", "Reason": "verdict",
    "Verdict": "verdict", "worst_gate": "verdict", "__version__": "version",
}

__all__ = [
    "CONFIRMATORY_MIN_SAMPLES", "EXIT_BAD_INPUT", "GATE_ORDER", "LOOP_MODES", "Completion", "FailureMode",
    "FinishReason", "Gate", "GenerationRequest", "Reason", "StoredResponse", "StreamStop", "TokenSource", "Verdict",
    "__version__", "worst_gate",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"forgegate.core.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
