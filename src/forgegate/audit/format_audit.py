"""The format audit (EVAL_FALSE_NEGATIVE): is the battery shaped like the training prompts?

Controls every run: a corpus made of the battery's own prompts (identical in format) must
come back clean, and for each applicable feature a deliberately mismatched copy of it
(template switched, a foreign speaker prefix, symbols stripped, prompts padded far longer)
must be flagged on that feature.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from forgegate.audit.battery_source import BatteryPrompt
from forgegate.audit.corpus import CorpusRow
from forgegate.audit.format_shape import FormatComparison, compare_shapes, is_symbol, prompt_length
from forgegate.audit.outcome import AuditFinding, Control, finding_of
from forgegate.errors import InputError

_FOREIGN_PREFIX = "Qzx:"
FORMAT_AUDIT_CATEGORIES: tuple[str, ...] = ("LX-B", "LX-G", "LX-X")
"""GLOSS v2, EVAL_FALSE_NEGATIVE: "Low scores in LX-B/G/X should trigger format audit, not automatic
disqualification." A failure in one of these points the report at this audit."""


@dataclass(frozen=True)
class FormatReport:
    comparison: FormatComparison
    min_rows: int
    mismatch_controls: dict[str, bool]
    identical_flags: int
    controls: tuple[Control, ...]
    finding: AuditFinding

    def per_category(self) -> dict[str, list[int]]:
        """Category -> [flagged items, items]: low scores in a flagged category may be format."""
        totals: dict[str, list[int]] = {}
        for category in self.comparison.battery_categories:
            totals.setdefault(category, [0, 0])[1] += 1
        for item in self.comparison.flagged:
            totals[item.category][0] += 1
        return totals


def run_format_audit(
    battery: list[BatteryPrompt], corpus: list[CorpusRow], *, min_rows: int = 1
) -> FormatReport:
    """Compare shapes, then run the identical-corpus and mismatched-corpus controls."""
    if min_rows < 1:
        raise InputError("--min-rows", f"must be at least 1, got {min_rows}")
    comparison = compare_shapes(battery, corpus, min_rows=min_rows)
    identical = _identical_corpus(battery, min_rows)
    identical_result = compare_shapes(battery, identical, min_rows=min_rows)
    identical_flags = len(identical_result.flagged) + identical_result.length_distribution_mismatch
    checks = _mismatch_checks(battery, identical)
    mismatch = {name: check(compare_shapes(battery, corpus_copy, min_rows=min_rows))
                for name, (corpus_copy, check) in checks.items()}
    missed = [name for name, ok in mismatch.items() if not ok]
    controls = (
        Control("identical_corpus", identical_flags == 0,
                f"a corpus of the battery's own prompts: {identical_flags} flags (must be 0)"),
        Control("mismatch_detected", not missed,
                f"{len(mismatch) - len(missed)}/{len(mismatch)} deliberate mismatches flagged "
                f"({', '.join(mismatch)})" + (f"; missed: {', '.join(missed)}" if missed else "")),
    )
    return FormatReport(comparison, min_rows, mismatch, identical_flags, controls,
                        finding_of(comparison.found, AuditFinding.MISMATCH))


def _identical_corpus(battery: Sequence[BatteryPrompt], copies: int) -> list[CorpusRow]:
    rows: list[CorpusRow] = []
    for _ in range(copies):
        for item in battery:
            rows.append(CorpusRow(len(rows) + 1, item.prompt, item.expected[0] if item.expected else "",
                                  item.chat))
    return rows


Check = Callable[[FormatComparison], bool]


def _mismatch_checks(battery: Sequence[BatteryPrompt],
                     identical: list[CorpusRow]) -> dict[str, tuple[list[CorpusRow], Check]]:
    def flags(feature: str) -> Check:
        return lambda result: result.feature_counts()[feature] > 0

    chat_items = sum(i.chat for i in battery)
    minority_chat = chat_items < len(battery) - chat_items
    longest = max(prompt_length(i.prompt) for i in battery)
    pad = " ".join(["filler"] * (longest + 10))
    checks: dict[str, tuple[list[CorpusRow], Check]] = {
        "template": ([CorpusRow(r.line, r.prompt, r.completion, minority_chat) for r in identical],
                     flags("template")),
        "prefix": ([CorpusRow(r.line, f"{_FOREIGN_PREFIX} {r.prompt}", r.completion, r.chat)
                    for r in identical], flags("prefix")),
        "length": ([CorpusRow(r.line, f"{r.prompt} {pad}", r.completion, r.chat) for r in identical],
                   lambda r: r.feature_counts()["length"] > 0 and r.length_distribution_mismatch),
    }
    if any(is_symbol(ch) for item in battery for ch in item.prompt):
        def strip(text: str) -> str:
            return "".join(ch for ch in text if not is_symbol(ch))
        checks["symbols"] = ([CorpusRow(r.line, strip(r.prompt), strip(r.completion), r.chat)
                              for r in identical], flags("symbols"))
    return checks
