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


def _gated(kind: str, controls: tuple[Control, ...], finding: AuditFinding) -> dict[str, Any]:
    """The fields every audit result shares: the gate's word and reasons, the finding, kind and version."""
    verdict = audit_verdict(controls, finding)
    return {"gate": verdict.gate, "reasons": reason_models(verdict), "finding": finding.value,
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
    pairs_sha256: dict[str, str] | None = None
    """The audited pairs files (as given) and their sha256: a plan ties its fixture's pairs file to this audit."""
    kind: Literal["leak_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: LeakReport) -> LeakAuditResult:
        """The audit's result from its report: the one place the report's figures become these fields."""
        found = len(report.surfaces) - len(report.missing_from_source)
        return cls(
            splits={name: LeakSplit(pairs=split.pairs, leaking_instruction=split.leaking_instruction,
                                    leaking_response=split.leaking_response, names=dict(split.names))
                    for name, split in report.splits.items()},
            controls=LeakControls(surfaces_found=(found, len(report.surfaces)), nonce_absent=report.nonce_absent,
                                  planted_detected=(report.planted_detected, len(report.planted))),
            **_gated("leak_audit", report.controls, report.finding))


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
        """The audit's result from its report: the one place the report's figures become these fields."""
        copy = report.clean_copy
        return cls(
            rows=report.rows, flagged_rows=len(report.flagged), patterns=report.pattern_counts(),
            offenders=[LoopOffender(line=f.line, patterns=dict(f.patterns)) for f in report.offenders],
            controls=LoopControls(planted_found=(report.planted_found, report.planted),
                                  clean_corpus_flags=report.clean_flags),
            write_clean=CleanCopyModel(path=str(copy.path), written=copy.written, kept=copy.kept,
                                       dropped=copy.dropped, note=copy.note) if copy else None,
            seed=report.seed, **_gated("loop_audit", report.controls, report.finding))


class FormatFlagged(Strict):
    id: str
    category: str
    reasons: dict[str, str]


class FormatControls(Strict):
    identical_corpus_flags: int
    mismatch_detected: tuple[int, int]
    mismatch_by_feature: dict[str, bool]


class LengthQuantiles(Strict):
    """Prompt lengths in characters: the extremes and three percentiles."""

    min: int
    """The shortest prompt."""
    p10: float
    """The 10th percentile."""
    median: float
    """The median."""
    p90: float
    """The 90th percentile."""
    max: int
    """The longest prompt."""


class PromptProfile(Strict):
    """The shape of one side's prompts (``audit.format_shape``): what the format audit compares."""

    template: dict[str, int]
    """Template (``chat`` / ``raw``) -> prompts."""
    prefixes: dict[str, int]
    """The ten most common speaker prefixes -> prompts (``(none)``: no prefix)."""
    symbols: int
    """Distinct symbol characters the prompts hold."""
    length_chars: LengthQuantiles
    """Prompt lengths in characters."""
    rows: int
    """Prompts profiled."""


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
    battery: PromptProfile
    """The battery prompts' shape: template, prefixes, symbols, length_chars, rows."""
    corpus: PromptProfile
    """The corpus prompts' shape, as ``battery``."""
    controls: FormatControls
    kind: Literal["format_audit"]
    schema_version: SchemaVersion

    @classmethod
    def of(cls, report: FormatReport) -> FormatAuditResult:
        """The audit's result from its report: the one place the report's figures become these fields."""
        c, mismatch = report.comparison, report.mismatch_controls
        return cls(
            items=c.items, corpus_rows=c.corpus_rows, min_rows=report.min_rows, flagged_items=len(c.flagged),
            features=c.feature_counts(), length_distribution_mismatch=c.length_distribution_mismatch,
            categories={k: (flagged, items) for k, (flagged, items) in report.per_category().items()},
            flagged=[FormatFlagged(id=m.item_id, category=m.category, reasons=m.reasons) for m in c.flagged],
            battery=PromptProfile.model_validate(c.battery_profile),
            corpus=PromptProfile.model_validate(c.corpus_profile),
            controls=FormatControls(identical_corpus_flags=report.identical_flags,
                                    mismatch_detected=(sum(mismatch.values()), len(mismatch)),
                                    mismatch_by_feature=dict(mismatch)),
            **_gated("format_audit", report.controls, report.finding))


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
        """The audit's result from its report: the one place the report's figures become these fields."""
        return cls(
            ngram=report.n, items=report.items, short_items_whole_match=report.short_items,
            items_without_words=list(report.empty_items), corpus_rows=report.corpus_rows,
            contaminated=len(report.hits), contaminated_with_answer=sum(h.with_answer for h in report.hits),
            hits=[ContaminationHit(id=h.item_id, category=h.category, method=h.method, overlap=round(h.overlap, 4),
                                   rows=h.rows, lines=list(h.lines), with_answer=h.with_answer)
                  for h in report.hits],
            controls=ContaminationControls(planted_found=(report.planted_found, len(report.planted)),
                                           clean_corpus_hits=report.clean_false_hits),
            seed=report.seed, **_gated("contamination_audit", report.controls, report.finding))


AuditResult = LeakAuditResult | LoopAuditResult | FormatAuditResult | ContaminationAuditResult
