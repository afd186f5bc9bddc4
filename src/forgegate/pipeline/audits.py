"""The training-data audits end to end: the instrument measures, ``gate.audit`` decides, the result carries both.

``forgegate audit loops|leak|format|contamination`` and a plan's leak audit call these, so the audit's word is
chosen here, in the pipeline, and nowhere else: the audits (``audit/``) return reports with their controls and
finding and no verdict, the result models (``results/audit.py``) are handed the verdict, and the CLI only prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from forgegate.core.audit_finding import AuditFinding
from forgegate.core.verdict import Verdict
from forgegate.gate.audit import Control, audit_verdict
from forgegate.results.audit import (
    ContaminationAuditResult,
    FormatAuditResult,
    LeakAuditResult,
    LoopAuditResult,
)

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


def loop_audit(corpus: Path, *, seed: int, top: int, min_repeats: int,
               write_clean: Path | None) -> Audited[LoopReport, LoopAuditResult]:
    """CORPUS_LOOP_INJECTION on ``corpus``; the clean copy is written only when the gate trusts the audit
    (``audit.loops.with_clean_copy`` refuses on INVALID: a blind audit's "clean" copy is not clean)."""
    from forgegate.audit import read_corpus, run_loop_audit, with_clean_copy

    report = run_loop_audit(read_corpus(corpus), seed=seed, top=top, min_repeats=min_repeats)
    verdict = audit_gate(report)
    if write_clean is not None:
        report = with_clean_copy(report, corpus, write_clean, verdict.gate)
    return Audited(report, LoopAuditResult.of(report, verdict))


def leak_result(report: LeakReport) -> LeakAuditResult:
    """A leak audit's result: the plan's lock and ``forgegate audit leak`` both build it here."""
    return LeakAuditResult.of(report, audit_gate(report))


def leak_audit(source: Path, renamed: list[Path], pairs: list[Path], *, seed: int, rename_map: Path | None,
               planted: int, glob: str) -> Audited[LeakReport, LeakAuditResult]:
    """Removed names in built pairs; the result names each pairs file's sha256 (a plan ties its fixture to it)."""
    from forgegate.audit import run_leak_audit
    from forgegate.fixture.provenance import sha256_bytes_of

    report = run_leak_audit(source, renamed, pairs, seed=seed, rename_map=rename_map, planted=planted, glob=glob)
    result = leak_result(report).model_copy(update={"pairs_sha256": {str(p): sha256_bytes_of(p) for p in pairs}})
    return Audited(report, result)


def format_audit(battery: Path, corpus: Path, *, min_rows: int = 1) -> Audited[FormatReport, FormatAuditResult]:
    """EVAL_FALSE_NEGATIVE: the battery's prompts against the training prompts' shape."""
    from forgegate.audit import load_battery_prompts, read_corpus, run_format_audit

    report = run_format_audit(load_battery_prompts(battery), read_corpus(corpus), min_rows=min_rows)
    return Audited(report, FormatAuditResult.of(report, audit_gate(report)))


def contamination_audit(battery: Path, corpus: Path, *, ngram: int, seed: int,
                        planted: int) -> Audited[ContaminationReport, ContaminationAuditResult]:
    """Battery items found (near-)verbatim in the corpus."""
    from forgegate.audit import load_battery_prompts, read_corpus, run_contamination_audit

    report = run_contamination_audit(load_battery_prompts(battery), read_corpus(corpus), n=ngram, seed=seed,
                                     planted=planted)
    return Audited(report, ContaminationAuditResult.of(report, audit_gate(report)))

