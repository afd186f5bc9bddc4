"""The training-data audits (``forgegate audit loops|leak|format|contamination --json``).

Each carries the gate word (``gate.audit``: a failed control is INVALID, a finding FAIL, a clean
audit PASS), its reasons, and what it found in ``finding`` (CLEAN, LEAK, LOOPS, MISMATCH,
CONTAMINATED); the rest is every count the terminal prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from forgegate.core.audit_finding import AuditFinding
from forgegate.gate.audit import audit_verdict
from forgegate.results.base import SCHEMA_VERSION, Gated, SchemaVersion, Strict, reason_models

if TYPE_CHECKING:
    from forgegate.audit import ContaminationReport, FormatReport, LeakReport, LoopReport
    from forgegate.audit.outcome import Control


class AuditBody(Gated):
    """The verdict of an audit; each kind adds ``finding`` (CLEAN or its own word), apart from the gate word."""


def _gated(kind: str, body: dict[str, object], controls: tuple[Control, ...],
           finding: AuditFinding) -> dict[str, Any]:
    verdict = audit_verdict(controls, finding)
    return {**body, "gate": verdict.gate, "reasons": reason_models(verdict), "finding": finding.value,
            "kind": kind, "schema_version": SCHEMA_VERSION}


class LeakSplit(Strict):
    pairs: int
    leaking_instruction: int
    leaking_response: int
    names: dict[str, int]
    """Removed name -> pairs (either half) that name it."""


class LeakControls(Strict):
    surfaces_found: tuple[int, int]
    nonce_absent: bool
    planted_detected: tuple[int, int]


class LeakAuditResult(AuditBody):
    """``forgegate audit leak --json``: removed names still present in built pairs, per split."""

    finding: Literal["CLEAN", "LEAK"]
    splits: dict[str, LeakSplit]
    controls: LeakControls
    kind: Literal["leak_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: LeakReport) -> LeakAuditResult:
        return cls.model_validate(_gated("leak_audit", report.to_json(), report.controls, report.finding))


class LoopOffender(Strict):
    line: int
    patterns: dict[str, str]


class LoopControls(Strict):
    planted_found: tuple[int, int]
    clean_corpus_flags: int


class CleanCopyModel(Strict):
    path: str
    written: bool
    kept: int
    dropped: int
    note: str


class LoopAuditResult(AuditBody):
    """``forgegate audit loops --json``: corpus rows that teach looping, per pattern."""

    finding: Literal["CLEAN", "LOOPS"]
    rows: int
    flagged_rows: int
    patterns: dict[str, int]
    offenders: list[LoopOffender]
    controls: LoopControls
    write_clean: CleanCopyModel | None
    seed: int
    kind: Literal["loop_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: LoopReport) -> LoopAuditResult:
        return cls.model_validate(_gated("loop_audit", report.to_json(), report.controls, report.finding))


class FormatFlagged(Strict):
    id: str
    category: str
    reasons: dict[str, str]


class FormatControls(Strict):
    identical_corpus_flags: int
    mismatch_detected: tuple[int, int]
    mismatch_by_feature: dict[str, bool]


class FormatAuditResult(AuditBody):
    """``forgegate audit format --json``: battery prompts shaped unlike the training prompts."""

    finding: Literal["CLEAN", "MISMATCH"]
    items: int
    corpus_rows: int
    min_rows: int
    flagged_items: int
    features: dict[str, int]
    length_distribution_mismatch: bool
    categories: dict[str, tuple[int, int]]
    """Category -> [flagged items, items]."""
    flagged: list[FormatFlagged]
    battery: dict[str, Any]
    """The battery prompts' shape: template, prefixes, symbols, length_chars, rows."""
    corpus: dict[str, Any]
    """The corpus prompts' shape, as ``battery``."""
    controls: FormatControls
    kind: Literal["format_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: FormatReport) -> FormatAuditResult:
        return cls.model_validate(_gated("format_audit", report.to_json(), report.controls, report.finding))


class ContaminationHit(Strict):
    id: str
    category: str
    method: Literal["ngram", "whole-item"]
    overlap: float
    rows: int
    lines: list[int]
    with_answer: bool


class ContaminationControls(Strict):
    planted_found: tuple[int, int]
    clean_corpus_hits: int


class ContaminationAuditResult(AuditBody):
    """``forgegate audit contamination --json``: battery items found (near-)verbatim in the corpus."""

    finding: Literal["CLEAN", "CONTAMINATED"]
    ngram: int
    items: int
    short_items_whole_match: int
    items_without_words: list[str]
    corpus_rows: int
    contaminated: int
    contaminated_with_answer: int
    hits: list[ContaminationHit]
    controls: ContaminationControls
    seed: int
    kind: Literal["contamination_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: ContaminationReport) -> ContaminationAuditResult:
        return cls.model_validate(
            _gated("contamination_audit", report.to_json(), report.controls, report.finding))


AuditResult = LeakAuditResult | LoopAuditResult | FormatAuditResult | ContaminationAuditResult
