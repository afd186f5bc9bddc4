"""The lineage table, newest last, with every category that went down vs the previous comparable record."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich import box
from rich.console import Console, Group
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from forgegate.lineage.record import Lineage
from forgegate.lineage.track_record import track_records
from forgegate.results import LineageRecord

DOWN = "↓"
NOTE_SHOWN = 400
"""Characters of a note the terminal table lists (the Markdown table keeps it whole): wrapping a 5 MB note
for a terminal took rich 13 s and a 50 MB one minutes; the rest is in the lineage file, at its line."""


@dataclass(frozen=True)
class LineageRow:
    line: int
    record: LineageRecord
    compared_with: str | None
    """Version of the nearest earlier record on the same battery and gate config."""
    comparability: str
    went_down: frozenset[str]
    """Categories (and ``sigma_total``) whose score is lower than in ``compared_with``."""


def _lower(new: float | None, old: float | None) -> bool:
    """Lower by more than float noise (0.8 + 0.6 and 0.9 + 0.5 are not the same float)."""
    return new is not None and old is not None and new < old - 1e-9


def lineage_rows(lineage: Lineage) -> list[LineageRow]:
    """One row a record, oldest first; a record is only compared with an earlier comparable one."""
    rows: list[LineageRow] = []
    seen: list[LineageRecord] = []
    for line, record in lineage.records:
        previous = seen[-1] if seen else None
        reference = next((r for r in reversed(seen) if r.comparable_with(record)), None)
        if previous is None:
            comparability = "first record"
        elif reference is previous:
            comparability = f"vs {previous.version}"
        elif reference is None:
            comparability = f"not comparable (battery or gate config differs from {previous.version})"
        else:
            comparability = f"vs {reference.version} ({previous.version} not comparable)"
        down: set[str] = set()
        if reference is not None:
            down = {c for c, s in record.category_scores.items()
                    if _lower(s, reference.category_scores.get(c))}
            if _lower(record.sigma_total, reference.sigma_total):
                down.add("sigma_total")
        rows.append(LineageRow(line, record, reference.version if reference else None, comparability,
                               frozenset(down)))
        seen.append(record)
    return rows


def _categories(rows: list[LineageRow]) -> list[str]:
    return list(dict.fromkeys(c for row in rows for c in row.record.category_scores))


def _score(value: float | None, down: bool, sep: str = " ") -> str:
    text = "n/a" if value is None else f"{value:.2f}"
    return f"{text}{sep}{DOWN}" if down else text


def _regressions(record: LineageRecord) -> str:
    accepted = {a.name for a in record.accepted_regressions}
    return ", ".join(f"{r} (accepted)" if r in accepted else r for r in record.regressions) or "-"


def _cells(row: LineageRow, categories: list[str]) -> list[str]:
    r = row.record
    return [
        r.version,
        r.date.strftime("%Y-%m-%d %H:%M"),
        r.verdict.value,
        "yes" if r.graduated else "no",
        _score(r.sigma_total, "sigma_total" in row.went_down),
        *[_score(r.category_scores.get(c), c in row.went_down) if c in r.category_scores else "-"
          for c in categories],
        ", ".join(r.failure_modes) or "-",
        _regressions(r),
        row.comparability,
        (r.note or "").replace("\n", " "),
    ]


def _headers(categories: list[str]) -> list[str]:
    return ["version", "date (UTC)", "verdict", "graduated", "σ_total", *categories,
            "failure modes", "regressions", "compared", "note"]


def track_record_lines(lineage: Lineage) -> list[str]:
    """One sentence per battery: its PASSes, how many a live PASS followed, which versions slipped through."""
    return [record.line() for record in track_records(lineage)]


def lineage_markdown(lineage: Lineage) -> str:
    """A GitHub Markdown table of the lineage (``↓``: lower than the previous comparable record)."""
    rows = lineage_rows(lineage)
    categories = _categories(rows)
    headers = _headers(categories)

    def fmt(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [fmt(headers), "|" + "|".join("---" for _ in headers) + "|"]
    lines += [fmt(_cells(row, categories)) for row in rows]
    marked = track_record_lines(lineage)
    lines += ["", *(f"- {line}" for line in marked)] if marked else []
    return "\n".join(lines) + "\n"


def _short_headers(categories: list[str]) -> tuple[list[str], str]:
    """Category headers without their common ``XX-`` prefix (a terminal is narrow), and that prefix."""
    prefix = os.path.commonprefix(categories) if len(categories) > 1 else ""
    prefix = prefix[: prefix.rfind("-") + 1] if "-" in prefix else ""
    return [c[len(prefix):] for c in categories], prefix


def _wide_table(rows: list[LineageRow], categories: list[str]) -> Table:
    """One row a version (newest last), category headers without their common prefix."""
    short, prefix = _short_headers(categories)
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False,
                  caption=escape(f"categories {prefix}*") if prefix else None)
    for header in ["version", "verdict", "grad", "σ_total", *short, "regressions"]:
        table.add_column(escape(header), no_wrap=header != "regressions")
    for row in rows:
        r = row.record
        table.add_row(escape(r.version), _verdict(r), "yes" if r.graduated else "no",
                      *_score_cells(row, categories), escape(_regressions(r)))
    return table


def _tall_table(rows: list[LineageRow], categories: list[str]) -> Table:
    """One column a version (newest right): what a narrow terminal can show."""
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False,
                  caption="one column a version (narrow terminal)")
    table.add_column("")
    for row in rows:
        table.add_column(escape(row.record.version), no_wrap=True)
    cells = [_score_cells(row, categories) for row in rows]
    table.add_row("verdict", *[_verdict(row.record) for row in rows])
    table.add_row("graduated", *["yes" if row.record.graduated else "no" for row in rows])
    for index, name in enumerate(["σ_total", *categories]):
        table.add_row(escape(name), *[column[index] for column in cells])
    table.add_row("regressions", *[escape(_regressions(row.record)) for row in rows])
    return table


def _verdict(record: LineageRecord) -> str:
    return f"[{'green' if record.graduated else 'red'}]{record.verdict.value}[/]"


def _score_cells(row: LineageRow, categories: list[str]) -> list[str]:
    r = row.record
    raw = [_score(r.sigma_total, "sigma_total" in row.went_down, sep=""),
           *[_score(r.category_scores.get(c), c in row.went_down, sep="") if c in r.category_scores else "-"
             for c in categories]]
    return [f"[red]{escape(c)}[/]" if c.endswith(DOWN) else escape(c) for c in raw]


def _note(row: LineageRow) -> str:
    """The note as the terminal lists it: whole when short, else its start and where the rest is."""
    note = row.record.note or "-"
    if len(note) <= NOTE_SHOWN:
        return note
    return f"{note[:NOTE_SHOWN]}… ({len(note) - NOTE_SHOWN} more characters, line {row.line} of the lineage file)"


def lineage_table(lineage: Lineage, console: Console) -> Group:
    """The history for a terminal: one row a version when it fits ``console``, else one column a version;
    the long fields (date, comparability, failure modes, note) listed below."""
    rows = lineage_rows(lineage)
    categories = _categories(rows)
    table = _wide_table(rows, categories)
    if Measurement.get(console, console.options.update_width(10_000), table).maximum > console.width:
        table = _tall_table(rows, categories)
    table.title = escape(f"lineage: {lineage.path}")
    details = [f"{DOWN}: lower than the previous record on the same battery and gate config"]
    details += [escape(f"{row.record.version}  {row.record.date:%Y-%m-%d %H:%M} UTC, {row.comparability}; "
                      f"failure modes: {', '.join(row.record.failure_modes) or 'none'}; "
                      f"note: {_note(row)}") for row in rows]
    details += [escape(line) for line in track_record_lines(lineage)]
    return Group(table, *details)
