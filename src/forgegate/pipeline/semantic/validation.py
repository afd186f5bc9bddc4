"""A plan's declared codebook validation: the filled blinded sheet scored against its key, and its reason.

The key is locked with the plan (``plan.inputs``); the sheet may be filled after the lock, so a missing
sheet is not an input error but an INCOMPLETE semantic verdict (``gate.semantic.validation_reason``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forgegate.core.verdict import Verdict
from forgegate.gate.semantic import with_validation
from forgegate.plan import LoadedPlan, SemanticParams
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.codebook import Codebook
from forgegate.semantic.human_validation import score_validation


def add_validation(loaded: LoadedPlan, params: SemanticParams, book: Codebook | None, verdict: Verdict,
                   book_info: dict[str, Any], contents: Mapping[str, bytes] | None = None) -> Verdict:
    """``verdict`` with the validation's reason; the score (or why there is none) goes to ``book_info``. With
    ``contents`` (the plan's inputs as its lock check hashed them) the locked key is scored from those bytes."""
    declared = params.validation
    if declared is None:
        return verdict
    sheet, key = loaded.resolve(declared.sheet), loaded.resolve(declared.key)
    if not sheet.is_file():
        missing = (f"{sheet} not found: label the blinded validation sheet (same_meaning 1/0) that "
                   "`forgegate semantic cluster` wrote beside the codebook, save it there, and re-run "
                   "(nothing is regenerated)")
        book_info["validation"] = {"sheet": str(sheet), "key": str(key), "scored": False, "note": missing}
        return with_validation(verdict, None, declared.min_agreement, missing)
    ids = None if book is None else {c.id for task in book.tasks.values() for c in task.clusters}
    settings = BootstrapSettings(seed=params.bootstrap_seed, n_resamples=params.bootstrap_resamples)
    key_raw = None if contents is None else contents[declared.key]
    score = score_validation(sheet, key, settings, ids, key_raw=key_raw)
    book_info["validation"] = score | {"scored": True, "min_agreement": declared.min_agreement}
    return with_validation(verdict, score, declared.min_agreement)
