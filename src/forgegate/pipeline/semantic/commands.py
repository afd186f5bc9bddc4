"""``forgegate semantic metrics|relevance|validate|compare`` end to end, so the CLI only parses, prints and exits.

Each function runs the semantic instrument on the user's files, hands its measurement to ``gate.semantic`` and
writes the JSON the command promises. The words (the table's HOLD/INCOMPLETE/INVALID, R(c)'s PASS/INCOMPLETE, the
validation's floor) are chosen in ``gate/``; the instruments (``semantic/``) measure, and ``cli/semantic.py`` is
wiring (the CLI never imports the gate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forgegate.core.verdict import Gate, Verdict
from forgegate.errors import UsageError
from forgegate.gate.semantic import relevance_gate, validation_verdict
from forgegate.jsonio import write_json_atomic
from forgegate.pipeline.semantic.table import gate_table

if TYPE_CHECKING:
    from forgegate.results import SemanticMetricsResult
    from forgegate.results.primary import MetricEntry
    from forgegate.semantic.codebook import Codebook
    from forgegate.semantic.taskstats import Roles


def semantic_metrics(samples: Path, relevance: Path, roles: Roles, *, aggregates: Path | None, seed: int,
                     exploratory: bool, experiment: str | None, primary: str | None,
                     json_out: Path | None, store: Path | None = None,
                     cost_arms: Sequence[str] = ()) -> SemanticMetricsResult:
    """The T_GPT table on a samples file and an R(c) file, worded by the gate, as its result (written to
    ``json_out`` when given)."""
    from forgegate.results import SemanticMetricsResult
    from forgegate.semantic import metrics_from_files

    table = metrics_from_files(samples, relevance, roles, aggregates=aggregates, seed=seed, exploratory=exploratory,
                               experiment=experiment, primary=primary, store=store, cost_arms=cost_arms)
    result = SemanticMetricsResult.of(gate_table(table))
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    return result


def freeze_codebook(draft: Path, out: Path) -> Codebook:
    """Freeze a draft codebook into ``out``, which is never overwritten (a frozen codebook's hash is on record)."""
    from forgegate.semantic.codebook import freeze, load_codebook, write_codebook

    if out.exists():
        raise UsageError(f"{out} exists: a frozen codebook is never overwritten")
    book = freeze(load_codebook(draft, require_frozen=False))
    write_codebook(book, out)
    return book


def write_relevance_sheet(codebook: Path, out_dir: Path, *, seed: int) -> tuple[Path, int]:
    """The condition-masked relevance sheet of a frozen codebook (its path and row count); an existing sheet is
    refused, since annotators may already be filling it."""
    import numpy as np

    from forgegate.semantic.codebook import load_codebook
    from forgegate.semantic.sheets import relevance_sheet

    book = load_codebook(codebook, require_frozen=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    sheet = out_dir / "relevance_sheet.csv"
    if sheet.exists():
        raise UsageError(f"{sheet} exists: annotators may already be filling it; choose another --out")
    return sheet, relevance_sheet(book, sheet, np.random.default_rng(seed))


@dataclass(frozen=True)
class Adjudicated:
    """``semantic relevance``'s outcome: the agreement report (as written to ``--json``) and the gate's word."""

    report: dict[str, Any]
    gate: Gate


def adjudicate_relevance(first: str, second: str, *, author: str, adjudication: Path | None,
                         adjudicator: str | None, codebook: Path | None, out: Path,
                         json_out: Path | None) -> Adjudicated:
    """Adjudicated R(c) from two annotators' sheets (``NAME=SHEET.csv`` each): kappa, the disagreements, the word
    (PASS once every disagreement is settled, else INCOMPLETE), and the record at ``out`` when complete."""
    from forgegate.semantic.codebook import load_codebook
    from forgegate.semantic.relevance import Annotation, adjudicate, check_codebook_coverage
    from forgegate.semantic.relevance_record import record_lines, write_record

    anns = []
    for spec in (first, second):
        name, sep, path = spec.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{spec!r}: write NAME=PATH")
        anns.append(Annotation(name.strip(), Path(path)))
    final, report = adjudicate(anns[0], anns[1], author=author, adjudication=adjudication)
    gate = relevance_gate(report["complete"])
    report["gate"] = gate.value
    book_hash = None
    if codebook is not None:
        book = load_codebook(codebook, require_frozen=True)
        check_codebook_coverage([*final, *report["open_disagreements"]],
                                [c.id for t in book.tasks.values() for c in t.clusters], anns[1].path)
        book_hash = book.content_hash
    lines = None
    if report["complete"]:
        lines = record_lines(anns[0], anns[1], final, report, adjudicator=adjudicator or "",
                             codebook_hash=book_hash, now=datetime.now(UTC))
    if json_out is not None:
        from forgegate.results.semantic_checks import SemanticRelevanceResult

        write_json_atomic(json_out, SemanticRelevanceResult.of(report).to_json())
    if lines is not None:
        write_record(out, lines)
    return Adjudicated(report, gate)


@dataclass(frozen=True)
class Validated:
    """``semantic validate``'s outcome: the agreement figures and the gate's verdict on them."""

    score: dict[str, Any]
    verdict: Verdict


def validate_clustering(sheet: Path, key: Path, *, minimum: float | None, seed: int,
                        json_out: Path | None) -> Validated:
    """The blinded human validation sheet scored against the clustering (with bootstrap intervals) and worded by
    the validation rule (below ``minimum``: INVALID); written to ``json_out`` when given."""
    from forgegate.semantic.bootstrap import BootstrapSettings
    from forgegate.semantic.human_validation import score_validation

    score = score_validation(sheet, key, BootstrapSettings(seed=seed))
    verdict = validation_verdict(score, minimum)
    if json_out is not None:
        from forgegate.results.semantic_checks import SemanticValidationResult

        write_json_atomic(json_out, SemanticValidationResult.of(score, minimum, verdict).to_json())
    return Validated(score, verdict)


@dataclass(frozen=True)
class Side:
    """One result of ``semantic compare``: its file, its table's mode and the endpoint's labelled values."""

    path: Path
    mode: str
    values: list[tuple[str, MetricEntry | None]]
    """Each cell's label and its across-task value (None: neither table has the endpoint's cell)."""


@dataclass(frozen=True)
class SideBySide:
    """Two semantic tables' values of one endpoint, and the fields they measure (with the plan's bridge)."""

    fields: tuple[str, str]
    bridge: str | None
    """How the plan's declared bridge relates the two fields; None when they measure the same field."""
    sides: tuple[Side, Side]


def compare_semantic(left: Path, right: Path, *, endpoint: str, plan: Path | None) -> SideBySide:
    """Two semantic results side by side: refused (UsageError) when they measure different T_GPT fields and no
    plan names a bridge, or when ``endpoint`` is not one of theirs."""
    from forgegate.results import PlanRunResult, SemanticMetricsBody, SemanticMetricsResult
    from forgegate.results.read import read_result_json
    from forgegate.semantic.fields import bridged, field_problem

    tables: list[SemanticMetricsBody] = []
    for path in (left, right):
        result = read_result_json(path).result
        body: SemanticMetricsBody | None = (
            result if isinstance(result, SemanticMetricsResult)
            else result.semantic.metrics if isinstance(result, PlanRunResult) and result.semantic is not None
            else None)
        if body is None:
            raise UsageError(f"{path}: a {result.kind} result with no semantic metrics table")
        tables.append(body)
    bridges: list[dict[str, object]] = []
    if plan is not None:  # bridges are declared in a plan, never read from a result file
        from forgegate.plan import load_plan

        params = load_plan(plan).plan.instruments.semantic
        bridges = [b.model_dump(mode="json") for b in (params.bridges if params is not None else ())]
    fields = (tables[0].field, tables[1].field)
    problem = field_problem(*fields, left_name=str(left), right_name=str(right), bridges=bridges)
    if problem is not None:
        raise UsageError(problem)
    known = sorted({*tables[0].across_tasks.endpoints(), *tables[1].across_tasks.endpoints()})
    if endpoint not in known:
        raise UsageError(f"--endpoint {endpoint!r} is not an endpoint of these results (they report "
                         f"{', '.join(known) or 'none'})")
    bridge = bridged(fields[0], fields[1], bridges)
    sides = tuple(Side(path, table.mode, list(table.across_tasks.entries(endpoint)) or [(endpoint, None)])
                  for path, table in zip((left, right), tables, strict=True))
    return SideBySide(fields, None if bridge is None else str(bridge["how"]), (sides[0], sides[1]))
