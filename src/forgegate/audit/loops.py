"""The corpus loop audit (CORPUS_LOOP_INJECTION): flag training rows that teach looping.

Four patterns, counted per row (a row may show several):

* ``repeated_phrase``: the completion loops, by the one shared detector
  (:func:`forgegate.checks.loops.detect_loop`, the same one ``eval`` uses);
* ``increment``: the v9 pattern, an escalation chain (``⊙ α? → αα. ⊙ αα? → ααα.``) or the
  prompt's queried symbol escalating (the shared detector's IDENTITY_LOOP);
* ``echo``: the completion echoes its own prompt;
* ``dominant_duplicates``: near-duplicate rows dominating one prompt (all but the first flagged).

Controls every run: rows planted with each pattern (scanned together with the corpus) must
all be flagged with their pattern, and a synthetic clean corpus must come back with no flag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from forgegate.audit.corpus import CorpusRow
from forgegate.audit.loop_patterns import dominant_duplicates, echoes_prompt, escalation_chain
from forgegate.audit.outcome import AuditFinding, Control, finding_of
from forgegate.audit.synthetic import clean_corpus, nonce_vocabulary
from forgegate.checks.loops import detect_loop, query_symbol_of
from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, read_bytes_or_input_error

PATTERNS = ("repeated_phrase", "increment", "echo", "dominant_duplicates")


@dataclass
class RowFlags:
    """The patterns one row shows, each with a short description, and a severity for ranking."""

    line: int
    patterns: dict[str, str] = field(default_factory=dict)
    severity: int = 0


def scan_rows(rows: Sequence[CorpusRow], *, min_repeats: int = 3) -> dict[int, RowFlags]:
    """Line -> flags for every row that shows at least one pattern (any exchange of a chat row)."""
    flags: dict[int, RowFlags] = {}

    def flag(line: int, pattern: str, detail: str, severity: int) -> None:
        entry = flags.setdefault(line, RowFlags(line))
        entry.patterns.setdefault(pattern, detail)
        entry.severity = max(entry.severity, severity)

    for row in rows:
        for prompt, completion in row.exchanges:
            symbol = query_symbol_of(prompt)
            finding = detect_loop(completion, query_symbol=symbol, min_repeats=min_repeats)
            if finding is not None:
                pattern = "increment" if finding.kind is FailureMode.IDENTITY_LOOP else "repeated_phrase"
                flag(row.line, pattern, finding.describe(), finding.repeats * finding.period)
            chain = escalation_chain(completion)
            if chain is not None:
                ch, k, length = chain
                runs = ", ".join(ch * (k + i) for i in range(length))
                flag(row.line, "increment", f"escalation chain {runs}", length)
            if echoes_prompt(prompt, completion):
                flag(row.line, "echo", f"completion echoes its prompt {prompt[:40]!r}", 1)
    for cluster in dominant_duplicates(rows):
        detail = (f"{len(cluster.lines)} near-duplicates of {cluster.prompt_rows} rows for prompt "
                  f"{cluster.prompt[:40]!r} (kept line {cluster.lines[0]})")
        for line in cluster.flagged:
            flag(line, "dominant_duplicates", detail, len(cluster.lines))
    return flags


@dataclass(frozen=True)
class LoopReport:
    """Counts per pattern, the worst offenders, the controls and the finding word."""

    rows: int
    flagged: dict[int, RowFlags]
    offenders: tuple[RowFlags, ...]
    planted: int
    planted_found: int
    planted_missed: tuple[str, ...]
    clean_flags: int
    seed: int
    controls: tuple[Control, ...]
    finding: AuditFinding
    clean_copy: CleanCopy | None = None

    def pattern_counts(self) -> dict[str, int]:
        return {p: sum(p in f.patterns for f in self.flagged.values()) for p in PATTERNS}


@dataclass(frozen=True)
class CleanCopy:
    """The ``--write-clean`` result: written only when the controls passed."""

    path: Path
    written: bool
    kept: int
    dropped: int
    note: str


def with_clean_copy(report: LoopReport, source: Path, out: Path, gate: Gate) -> LoopReport:
    """Write the cleaned corpus unless the audit's ``gate`` is INVALID (a blind audit's "clean" copy is not clean)."""
    if gate is Gate.INVALID:
        copy = CleanCopy(out, False, 0, 0, "not written: a control failed, the flags cannot be trusted")
    elif Path(out).resolve() == Path(source).resolve():
        raise InputError(out, "--write-clean would overwrite the corpus it reads",
                         hint="write the clean copy to a new file")
    else:
        kept, dropped = write_clean(source, out, set(report.flagged))
        copy = CleanCopy(out, True, kept, dropped, f"dropped {dropped} flagged rows, kept {kept}")
    return replace(report, clean_copy=copy)


def run_loop_audit(rows: list[CorpusRow], *, seed: int, top: int = 10, min_repeats: int = 3) -> LoopReport:
    """Scan ``rows`` with planted rows alongside, then a synthetic clean corpus; name the finding."""
    rng = np.random.default_rng(seed)
    first_planted = max(r.line for r in rows) + 1
    planted_rows, expected = planted_loop_rows(rng, first_planted)
    flags = scan_rows([*rows, *planted_rows], min_repeats=min_repeats)
    real = {line: f for line, f in flags.items() if line < first_planted}
    missed = tuple(f"{pattern} (line {line})" for line, pattern in expected
                   if pattern not in flags.get(line, RowFlags(line)).patterns)
    clean = scan_rows(clean_corpus(rng), min_repeats=min_repeats)
    controls = (
        Control("planted_found", not missed,
                f"{len(expected) - len(missed)}/{len(expected)} planted loop rows flagged with their pattern"
                + (f"; missed: {', '.join(missed)}" if missed else "")),
        Control("clean_corpus", not clean,
                f"synthetic clean corpus: {len(clean)} rows flagged (must be 0)"),
    )
    offenders = sorted(real.values(), key=lambda f: (-len(f.patterns), -f.severity, f.line))[:top]
    return LoopReport(
        rows=len(rows), flagged=real, offenders=tuple(offenders), planted=len(expected),
        planted_found=len(expected) - len(missed), planted_missed=missed, clean_flags=len(clean),
        seed=seed, controls=controls, finding=finding_of(bool(real), AuditFinding.LOOPS),
    )


def planted_loop_rows(
    rng: np.random.Generator, first_line: int
) -> tuple[list[CorpusRow], list[tuple[int, str]]]:
    """One planted row per pattern (four duplicates for the cluster), with the pattern each must show."""
    w = nonce_vocabulary(rng, 40)
    line = first_line
    rows: list[CorpusRow] = []
    expected: list[tuple[int, str]] = []

    def add(prompt: str, completion: str, pattern: str | None) -> None:
        nonlocal line
        rows.append(CorpusRow(line, prompt, completion, chat=False))
        if pattern is not None:
            expected.append((line, pattern))
        line += 1

    phrase = " ".join(w[0:5]).capitalize() + "."
    add(" ".join(w[5:10]) + "?", " ".join([phrase] * 4), "repeated_phrase")
    add("⊙ α?", "⊙ α? → αα. ⊙ αα? → ααα.", "increment")
    add(" ".join(w[10:14]) + "?", f"ψ {w[14]}, ψψ {w[15]}, ψψψ {w[16]}.", "increment")
    echo_prompt = " ".join(w[17:22]) + "?"
    add(echo_prompt, f"{echo_prompt} {' '.join(w[22:26])}.", "echo")
    dup_prompt, dup_answer = " ".join(w[26:31]) + "?", " ".join(w[31:38]) + "."
    add(dup_prompt, dup_answer, None)
    for _ in range(3):
        add(dup_prompt, dup_answer, "dominant_duplicates")
    return rows, expected


def write_clean(source: Path, out: Path, drop: set[int]) -> tuple[int, int]:
    """Copy ``source`` to ``out`` byte for byte without the ``drop`` lines; (kept, dropped) rows."""
    kept_lines: list[bytes] = []
    dropped = 0
    raw = read_bytes_or_input_error(Path(source), what="pairs file", limit=MAX_CORPUS_FILE_BYTES)
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        if number in drop:
            dropped += 1
        else:
            kept_lines.append(line)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(b"".join(line + b"\n" for line in kept_lines))
    tmp.replace(out)
    return len(kept_lines), dropped
