"""A plan's E4_R_META: the blinded recurrence sheet written beside the run store, read back once a human filled it.

Every scoring rewrites the blank sheet and its key in the run's ``.semantic`` folder (seeded: identical
each time); the filled copy is read from where the plan's ``sheet`` says. Missing or partly blank, the
semantic verdict is INCOMPLETE and a re-run scores it without regenerating.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forgegate.core.verdict import Verdict
from forgegate.gate.semantic import recurrence_reason
from forgegate.plan import LoadedPlan, SemanticParams
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.codebook import TextSample
from forgegate.semantic.recurrence import recurrence_sheet, score_recurrence


def recurrence_outcome(loaded: LoadedPlan, params: SemanticParams, samples: list[TextSample],
                       questions: dict[str, str], out_dir: Path, verdict: Verdict) -> tuple[dict[str, Any] | None,
                                                                                             Verdict]:
    """E4's block (None when the plan declares no recurrence sheet) and the verdict with its reason."""
    declared = params.recurrence
    if declared is None:
        return None, verdict
    blank, key = out_dir / "recurrence_sheet.csv", out_dir / "recurrence_key.csv"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = recurrence_sheet(samples, questions, (declared.structural, declared.style_control), blank, key,
                            params.bootstrap_seed)
    filled = loaded.resolve(declared.sheet)
    if not filled.is_file():
        why = (f"{filled} not found: label the {rows} answers of {blank} (recurs 1/0; the arms are hidden), save the "
               "filled copy there and re-run (nothing is regenerated)")
        return ({"experiment": "E4_R_META", "scored": False, "blank_sheet": str(blank), "note": why},
                recurrence_reason(verdict, None, why))
    settings = BootstrapSettings(seed=params.bootstrap_seed, n_resamples=params.bootstrap_resamples)
    score = score_recurrence(filled, key, declared.structural, declared.style_control, settings)
    return score | {"scored": score["difference"] is not None, "blank_sheet": str(blank)}, recurrence_reason(verdict,
                                                                                                            score)
