"""Terminal lines for a plan's semantic extras: E3_TOPOLOGY's block, post-freeze merges, separation, validation."""

from __future__ import annotations

from rich.markup import escape

from forgegate.results.base import Estimate
from forgegate.results.semantic_blocks import CodebookInfo, RecurrenceBlock, TopologyBlock


def _value(entry: Estimate | None) -> str:
    if entry is None or entry.value is None:
        return "NA"
    ci = entry.ci
    return f"{entry.value:+.3f}" + ("" if ci is None else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]")


def _ratio(entry: Estimate | None) -> str:
    if entry is None or entry.value is None:
        return "NA"
    ci = entry.ci
    return f"{entry.value:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")


def topology_lines(topology: TopologyBlock | None) -> list[str]:
    """E3: the primary and secondary differences (candidate - control), their ratios and both token budgets."""
    if topology is None:
        return []
    control, candidate, budgets = topology.control, topology.candidate, topology.budgets
    if not topology.scored or control is None or candidate is None or budgets is None or topology.primary is None \
            or not topology.secondary:
        return [f"E3_TOPOLOGY not scored: {escape(str(topology.note))}"]
    secondary = topology.secondary[0].difference
    holm = "NA" if secondary.p_holm is None else f"{secondary.p_holm:.3g}"
    return [
        escape(f"E3_TOPOLOGY {candidate} - {control}: AGG_COVERAGE {_value(topology.primary.difference)} "
               f"(primary); MINORITY_RECALL {_value(secondary)}, Holm p {holm} (secondary)"),
        escape(f"  {candidate} / {control}: AGG_COVERAGE {_ratio(topology.primary.ratio)}; "
               f"MINORITY_RECALL {_ratio(topology.secondary[0].ratio)}"),
        escape(f"  total tokens: {control} {budgets.totals[control]}, {candidate} {budgets.totals[candidate]} "
               f"({budgets.gap:.1%} apart; matched within {budgets.tolerance:.1%})"
               + (f"; from {budgets.source}" if budgets.source else "")),
    ]


def codebook_lines(book: CodebookInfo) -> list[str]:
    """Separation from development data, apparent merges (exploratory) and the human validation, when present."""
    lines: list[str] = []
    if book.separation is not None:
        lines.append(f"  development samples: {escape(str(book.separation.note))}")
    merges = {t: m for t, m in (book.exploratory_merges or {}).items() if m}
    if merges:
        shown = "; ".join(f"{'+'.join(m.clusters)} ({m.size} samples)" for ms in merges.values() for m in ms)
        lines.append(f"  apparent merges after the freeze (exploratory, no score changed): {escape(shown)}")
    validation = book.validation
    if validation is not None:
        agreement = validation.agreement
        if not validation.scored or agreement is None:
            lines.append(f"  codebook validation: {escape(str(validation.note))}")
        else:
            value = "NA" if agreement.value is None else f"{agreement.value:.3f}"
            ci = "" if agreement.ci is None else f" [{agreement.ci[0]:.3f}, {agreement.ci[1]:.3f}]"
            minimum = validation.min_agreement
            lines.append(f"  codebook validation: human/clustering agreement {value}{ci} over "
                         f"{validation.labelled} of {validation.pairs} pairs"
                         + ("" if minimum is None else f" (minimum {minimum:g})"))
    return lines


def recurrence_lines(recurrence: RecurrenceBlock | None) -> list[str]:
    """E4: the blinded recurrence rate per arm and structural - style control, or why there is none yet."""
    if recurrence is None:
        return []
    if not recurrence.scored or recurrence.rates is None:
        why = recurrence.note or f"{len(recurrence.unlabelled_rows or [])} rows not labelled yet"
        return [f"E4_R_META not scored: {escape(str(why))}"]
    rates = "; ".join(f"{arm} {r.recurring}/{r.n} {_value(r)}" for arm, r in recurrence.rates.items())
    return [escape(f"E4_R_META blinded structural-recurrence rate: {rates}"),
            escape(f"  {recurrence.structural} - {recurrence.style_control}: "
                   f"{_value(recurrence.difference)}; ratio {_value(recurrence.ratio)}")]
