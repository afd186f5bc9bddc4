"""The semantic metrics table, worded: the instrument's measured table handed to ``gate.semantic``.

``semantic.compute_metrics`` (and ``metrics_from_files``) measure and run their controls and return a
``MetricsTable`` with no verdict; this is the one place its ``gate`` and ``reasons`` are written into the table's
JSON, for a plan run (``pipeline/plan/semantic.py``) and for ``forgegate semantic metrics`` alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from forgegate.core.verdict import Verdict
from forgegate.gate.semantic import metrics_verdict

if TYPE_CHECKING:
    from forgegate.semantic.analysis import MetricsTable


def gate_table(table: MetricsTable) -> dict[str, Any]:
    """The table's JSON with the gate's word and reasons after its ``schema``, where the result models read them."""
    verdict = metrics_verdict(table.controls, table.incomplete, table.primaries)
    head, *rest = table.body.items()
    return dict([head, *TypeAdapter(Verdict).dump_python(verdict, mode="json").items(), *rest])  # the type's dump
