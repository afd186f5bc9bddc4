"""forgegate in the training loop: probe each checkpoint as it is saved, stop a run that starts to loop,
watch an output folder, and turn a finished run into a plan.

``from forgegate.training import ForgegateCallback`` imports transformers (the callback is a
``transformers.TrainerCallback``); the other names do not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.training.callback import ForgegateCallback
    from forgegate.training.probe import ProbeTarget, probe_async
    from forgegate.training.records import PROBES_FILE, ProbeFile, append_probe, read_probes

_LAZY = {
    "ForgegateCallback": "forgegate.training.callback",
    "ProbeTarget": "forgegate.training.probe",
    "probe_async": "forgegate.training.probe",
    "PROBES_FILE": "forgegate.training.records",
    "ProbeFile": "forgegate.training.records",
    "append_probe": "forgegate.training.records",
    "read_probes": "forgegate.training.records",
}

__all__ = ["PROBES_FILE", "ForgegateCallback", "ProbeFile", "ProbeTarget", "append_probe", "probe_async",
           "read_probes"]


def __getattr__(name: str) -> Any:
    """Names load on first use (the callback pulls in transformers)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
