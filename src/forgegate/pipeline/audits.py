"""The training-data audits end to end: the instrument measures, ``gate.audit`` decides, the result carries both.

``forgegate audit loops|leak|format|contamination`` and a plan's leak audit call these, so the audit's word is
chosen here, in the pipeline, and nowhere else: the audits (``audit/``) return reports with their controls and
finding and no verdict, the result models (``results/audit.py``) are plain fields built here once from both (so
they name neither the gate nor the audit), and the CLI only prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from forgegate.core.audit_finding import AuditFinding
from forgegate.core.verdict import Verdict
from forgegate.gate.audit import Control, audit_verdict
from forgegate.results.audit import (
    CleanCopyModel,
    ContaminationAuditResult,
    ContaminationControls,
    ContaminationHit,
    FormatAuditResult,
    FormatControls,
    FormatFlagged,
    LeakAuditResult,
    LeakControls,
    LeakSplit,
    LoopAuditResult,
    LoopControls,
    LoopOffender,
    PromptProfile,
)
from forgegate.results.base import SCHEMA_VERSION, reason_models

if TYPE_CHECKING:
    from collections.abc import Sequence

    from forgegate.audit import ContaminationReport, FormatReport, LeakReport, LoopReport

R = TypeVar("R")
T = TypeVar("T")


class Measured(Protocol):
    """What the audit rule reads of any audit's report: the controls it ran and what it found."""

    @property
    def controls(self) -> Sequence[Control]: ...
    @property
    def finding(self) -> AuditFinding: ...


@dataclass(frozen=True)
class Audited(Generic[R, T]):
    """An audit's report (what the terminal lines are drawn from) and its gated result (the JSON and exit code)."""

    report: R
    result: T


def audit_gate(report: Measured) -> Verdict:
    """The gate's verdict on one audit's report (``gate.audit.audit_verdict``)."""
    return audit_verdict(report.controls, report.finding)


def _gated(kind: str, verdict: Verdict, finding: AuditFinding) -> dict[str, Any]:
    """The fields every audit result shares: the gate's word and reasons, the finding, kind and version."""
    return {"gate": verdict.gate, "reasons": reason_models(verdict), "finding": finding.value,
            "kind": kind, "schema_version": SCHEMA_VERSION}


def leak_model(report: LeakReport, verdict: Verdict) -> LeakAuditResult:
    """The leak audit's result from its report and the gate's verdict: the one place its figures become fields."""
    found = len(report.surfaces) - len(report.missing_from_source)
    return LeakAuditResult(
        splits={name: LeakSplit(pairs=split.pairs, leaking_instruction=split.leaking_instruction,
                                leaking_response=split.leaking_response, names=dict(split.names))
                for name, split in report.splits.items()},
        controls=LeakControls(surfaces_found=(found, len(report.surfaces)), nonce_absent=report.nonce_absent,
                              planted_detected=(report.planted_detected, len(report.planted))),
        **_gated("leak_audit", verdict, report.finding))


def loop_model(report: LoopReport, verdict: Verdict) -> LoopAuditResult:
    """The loop audit's result from its report and the gate's verdict: the one place its figures become fields."""
    copy = report.clean_copy
    return LoopAuditResult(
        rows=report.rows, flagged_rows=len(report.flagged), patterns=report.pattern_counts(),
        offenders=[LoopOffender(line=f.line, patterns=dict(f.patterns)) for f in report.offenders],
        controls=LoopControls(planted_found=(report.planted_found, report.planted),
                              clean_corpus_flags=report.clean_flags),
        write_clean=CleanCopyModel(path=str(copy.path), written=copy.written, kept=copy.kept,
                                   dropped=copy.dropped, note=copy.note) if copy else None,
        seed=report.seed, **_gated("loop_audit", verdict, report.finding))


def format_model(report: FormatReport, verdict: Verdict) -> FormatAuditResult:
    """The format audit's result from its report and the gate's verdict: the one place its figures become fields."""
    c, mismatch = report.comparison, report.mismatch_controls
    return FormatAuditResult(
        items=c.items, corpus_rows=c.corpus_rows, min_rows=report.min_rows, flagged_items=len(c.flagged),
        features=c.feature_counts(), length_distribution_mismatch=c.length_distribution_mismatch,
        categories={k: (flagged, items) for k, (flagged, items) in report.per_category().items()},
        flagged=[FormatFlagged(id=m.item_id, category=m.category, reasons=m.reasons) for m in c.flagged],
        battery=PromptProfile.model_validate(c.battery_profile), corpus=PromptProfile.model_validate(c.corpus_profile),
        controls=FormatControls(identical_corpus_flags=report.identical_flags,
                                mismatch_detected=(sum(mismatch.values()), len(mismatch)),
                                mismatch_by_feature=dict(mismatch)),
        **_gated("format_audit", verdict, report.finding))


def contamination_model(report: ContaminationReport, verdict: Verdict) -> ContaminationAuditResult:
    """The contamination audit's result from its report and the gate's verdict: the one place its figures become
    fields."""
    return ContaminationAuditResult(
        ngram=report.n, items=report.items, short_items_whole_match=report.short_items,
        items_without_words=list(report.empty_items), corpus_rows=report.corpus_rows,
        contaminated=len(report.hits), contaminated_with_answer=sum(h.with_answer for h in report.hits),
        hits=[ContaminationHit(id=h.item_id, category=h.category, method=h.method, overlap=round(h.overlap, 4),
                               rows=h.rows, lines=list(h.lines), with_answer=h.with_answer)
              for h in report.hits],
        controls=ContaminationControls(planted_found=(report.planted_found, len(report.planted)),
                                       clean_corpus_hits=report.clean_false_hits),
        seed=report.seed, **_gated("contamination_audit", verdict, report.finding))


def loop_audit(corpus: Path, *, seed: int, top: int, min_repeats: int,
               write_clean: Path | None) -> Audited[LoopReport, LoopAuditResult]:
    """CORPUS_LOOP_INJECTION on ``corpus``; the clean copy is written only when the gate trusts the audit
    (``audit.loops.with_clean_copy`` refuses on INVALID: a blind audit's "clean" copy is not clean)."""
    from forgegate.audit import read_corpus, run_loop_audit, with_clean_copy

    report = run_loop_audit(read_corpus(corpus), seed=seed, top=top, min_repeats=min_repeats)
    verdict = audit_gate(report)
    if write_clean is not None:
        report = with_clean_copy(report, corpus, write_clean, verdict.gate)
    return Audited(report, loop_model(report, verdict))


def leak_result(report: LeakReport) -> LeakAuditResult:
    """A leak audit's result: the plan's lock and ``forgegate audit leak`` both build it here."""
    return leak_model(report, audit_gate(report))


def leak_audit(source: Path, renamed: list[Path], pairs: list[Path], *, seed: int, rename_map: Path | None,
               planted: int, glob: str) -> Audited[LeakReport, LeakAuditResult]:
    """Removed names in built pairs; the result names each pairs file's sha256 (a plan ties its fixture to it)."""
    import hashlib

    from forgegate.audit import run_leak_audit
    from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, read_bytes_or_input_error

    # each pairs file read once: the bytes audited are the bytes whose sha256 the result names
    read = {path: read_bytes_or_input_error(path, what="pairs file", limit=MAX_CORPUS_FILE_BYTES) for path in pairs}
    report = run_leak_audit(source, renamed, pairs, seed=seed, rename_map=rename_map, planted=planted, glob=glob,
                            pair_bytes=read)
    digests = {str(path): hashlib.sha256(raw).hexdigest() for path, raw in read.items()}
    return Audited(report, leak_result(report).model_copy(update={"pairs_sha256": digests}))


def format_audit(battery: Path, corpus: Path, *, min_rows: int = 1) -> Audited[FormatReport, FormatAuditResult]:
    """EVAL_FALSE_NEGATIVE: the battery's prompts against the training prompts' shape."""
    from forgegate.audit import load_battery_prompts, read_corpus, run_format_audit

    report = run_format_audit(load_battery_prompts(battery), read_corpus(corpus), min_rows=min_rows)
    return Audited(report, format_model(report, audit_gate(report)))


def contamination_audit(battery: Path, corpus: Path, *, ngram: int, seed: int,
                        planted: int) -> Audited[ContaminationReport, ContaminationAuditResult]:
    """Battery items found (near-)verbatim in the corpus."""
    from forgegate.audit import load_battery_prompts, read_corpus, run_contamination_audit

    report = run_contamination_audit(load_battery_prompts(battery), read_corpus(corpus), n=ngram, seed=seed,
                                     planted=planted)
    return Audited(report, contamination_model(report, audit_gate(report)))

