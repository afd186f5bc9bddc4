"""Plain-text lines for the terminal, one function per audit; every count printed is in the JSON."""

from __future__ import annotations

from forgegate.audit.contamination import ContaminationReport
from forgegate.audit.format_audit import FormatReport
from forgegate.audit.leak import LeakReport
from forgegate.audit.loops import LoopReport
from forgegate.audit.outcome import AuditFinding, Control
from forgegate.core.verdict import Gate


def _pct(k: int, n: int) -> str:
    return f"{k} of {n} ({100 * k / n:.2f}%)" if n else f"{k} of {n}"


def _controls(controls: tuple[Control, ...]) -> list[str]:
    lines = ["controls:"]
    lines += [f"  [{'ok' if c.passed else 'FAILED'}] {c.name}: {c.detail}" for c in controls]
    return lines


def verdict_lines(gate: Gate, finding: AuditFinding) -> list[str]:
    """The closing lines of every audit: the gate word (``forgegate.gate.audit`` chose it) and the finding."""
    lines = []
    if gate is Gate.INVALID:
        lines.append("a control failed: the audit may be blind, so its findings are not a result")
    lines.append(f"gate: {gate.value} (finding: {finding.value})")
    return lines


def leak_lines(report: LeakReport) -> list[str]:
    lines = [f"leak audit: names from the {report.names_from}"]
    if report.kept_by_rename:
        lines.append(f"  kept by the rename, not counted: {', '.join(report.kept_by_rename)}")
    for name, split in report.splits.items():
        lines.append(f"  {name}: {split.pairs} pairs; instructions leaking "
                     f"{_pct(split.leaking_instruction, split.pairs)}, responses leaking "
                     f"{_pct(split.leaking_response, split.pairs)}")
        if split.names:
            lines.append("    names (pairs naming each): "
                         + ", ".join(f"{n} x{c}" for n, c in split.names.items()))
        lines += [f"    e.g. {e}" for e in split.examples]
    return lines + _controls(report.controls)


def loop_lines(report: LoopReport) -> list[str]:
    lines = [f"loop audit: {report.rows} rows, {len(report.flagged)} flagged"]
    lines += [f"  {pattern}: {count}" for pattern, count in report.pattern_counts().items()]
    if report.offenders:
        lines.append("worst offenders:")
        for f in report.offenders:
            lines.append(f"  line {f.line}: " + "; ".join(f"{p}: {d}" for p, d in f.patterns.items()))
    if report.clean_copy is not None:
        lines.append(f"--write-clean {report.clean_copy.path}: {report.clean_copy.note}")
    return lines + _controls(report.controls)


def format_lines(report: FormatReport) -> list[str]:
    c = report.comparison
    b, k = c.battery_profile, c.corpus_profile
    lines = [
        f"format audit: {c.items} battery items vs {c.corpus_rows} corpus rows "
        f"(a shape counts as trained on when at least {report.min_rows} corpus rows show it)",
        f"  template   battery {b['template']}  corpus {k['template']}",
        f"  prefixes   battery {b['prefixes']}  corpus {k['prefixes']}",
        f"  symbols    battery {b['symbols']} distinct  corpus {k['symbols']} distinct",
        f"  length     battery {b['length_chars']}",
        f"             corpus  {k['length_chars']}",
        f"flagged items: {len(c.flagged)} of {c.items}; by feature: "
        + ", ".join(f"{f} {n}" for f, n in c.feature_counts().items()),
    ]
    if c.length_distribution_mismatch:
        lines.append("  length distribution: the battery's median prompt lies outside the corpus's p10-p90")
    for category, (flagged, total) in report.per_category().items():
        if flagged:
            lines.append(f"  {category}: {flagged} of {total} items shaped unlike the corpus "
                         "(a low score here may be format, not capability)")
    for m in c.flagged[:10]:
        lines.append(f"  {m.item_id}: " + "; ".join(f"{f}: {d}" for f, d in m.reasons.items()))
    return lines + _controls(report.controls)


def contamination_lines(report: ContaminationReport) -> list[str]:
    lines = [
        f"contamination audit: {report.items} battery items vs {report.corpus_rows} corpus rows, "
        f"{report.n}-gram overlap",
        f"  {report.short_items} items shorter than {report.n} words: matched whole (verbatim, word-aligned)",
    ]
    if report.empty_items:
        lines.append(f"  items with no words, not checkable: {', '.join(report.empty_items)}")
    lines.append(f"contaminated: {len(report.hits)} of {report.items} items, "
                 f"{sum(h.with_answer for h in report.hits)} with an expected answer in the matching row")
    for h in report.hits[:15]:
        where = ", ".join(str(x) for x in h.lines)
        lines.append(f"  {h.item_id} ({h.method}, overlap {h.overlap:.0%}): {h.rows} rows, lines {where}"
                     + (" [answer present]" if h.with_answer else ""))
    return lines + _controls(report.controls)
