"""The training-data audits (``forgegate audit loops|leak|format|contamination --json``).

Each carries the gate word (``gate.audit``: a failed control is INVALID, a finding FAIL, a clean
audit PASS), its reasons, and what it found in ``finding`` (CLEAN, LEAK, LOOPS, MISMATCH,
CONTAMINATED); the rest is every count the terminal prints. The models are plain fields: the pipeline
(``pipeline/audits.py``) hands an audit's report to ``gate.audit`` and builds the result from both, so a result
model decides nothing and names neither the gate nor the audit.
"""

from __future__ import annotations

from typing import Literal

from forgegate.results.base import Gated, SchemaVersion, Strict


class AuditBody(Gated):
    """The verdict of an audit; each kind adds ``finding`` (CLEAN or its own word), apart from the gate word."""


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



AuditResult = LeakAuditResult | LoopAuditResult | FormatAuditResult | ContaminationAuditResult
