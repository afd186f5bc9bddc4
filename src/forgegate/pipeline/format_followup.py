"""The format audit as the follow-up of a failed LX-B / LX-G / LX-X (GLOSS v2, EVAL_FALSE_NEGATIVE).

GLOSS v2: "Low scores in LX-B/G/X should trigger format audit, not automatic disqualification."
forgegate says so whenever one of them fails and, given the training corpus, runs the audit and
records its finding. The verdict stays what the gate said: invariant 1 ("no category may be
waived, weighted out, or skipped") stands, so a format mismatch explains a FAIL, it does not lift it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from forgegate.results.eval import EvalResult, FormatFollowUp

STILL_FAILS = "the verdict stays FAIL (GLOSS v2 invariant 1: no category may be waived)"


def followup_categories(failed_categories: Sequence[str]) -> list[str]:
    """The failed categories the format audit follows up."""
    if not failed_categories:
        return []
    from forgegate.audit.format_audit import FORMAT_AUDIT_CATEGORIES  # the audit (numpy) loads when one failed

    return [c for c in failed_categories if c in FORMAT_AUDIT_CATEGORIES]


def format_followup(failed_categories: Sequence[str], battery_path: Path,
                    corpus: Path | None) -> FormatFollowUp | None:
    """The result's ``format_followup`` block (None when none of LX-B/G/X failed); with ``corpus`` the audit
    runs on the battery and that corpus (an unreadable corpus is an InputError, exit 2)."""
    categories = followup_categories(failed_categories)
    if not categories:
        return None
    named = ", ".join(categories)
    if corpus is None:
        return FormatFollowUp(
            categories=categories, corpus=None, audit_gate=None, flagged={},
            finding=f"{named} failed: GLOSS v2's follow-up is a format audit (eval prompts vs training "
                    f"prompts): forgegate audit format --battery {battery_path} --corpus TRAINING.jsonl, "
                    f"or pass --training-corpus; {STILL_FAILS}")
    from forgegate.pipeline.audits import format_audit

    audited = format_audit(battery_path, corpus)
    report, audit_gate = audited.report, audited.result.gate
    said = f"{audit_gate.value} (finding: {report.finding.value})"
    per_category = report.per_category()
    flagged = {c: per_category.get(c, [0, 0]) for c in categories}
    shaped = [f"{c} {f}/{n} items shaped unlike the corpus" for c, (f, n) in flagged.items()]
    return FormatFollowUp(categories=categories, corpus=str(corpus), audit_gate=audit_gate.value, flagged=flagged,
                          finding=f"format audit {said} against {corpus.name}: {'; '.join(shaped)}; {STILL_FAILS}")


def with_training_corpus(result: EvalResult, corpus: Path | None) -> EvalResult:
    """``result`` with its follow-up re-made against ``corpus`` (unchanged without one)."""
    if corpus is None:
        return result
    followup = format_followup(result.failed_categories, Path(result.battery.path), corpus)
    return result.model_copy(update={"format_followup": followup})
