"""`forgegate semantic ...`: wiring for the T_GPT semantic support metrics, codebook and annotation."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console, exit_with
from forgegate.cli.options import HTML_OPTION, MARKDOWN_OPTION
from forgegate.core.limits import RNG_SEED_MAX
from forgegate.errors import UsageError
from forgegate.plan.experiments import EXPERIMENT_NAMES
from forgegate.semantic.embedding import DEFAULT_THRESHOLD
from forgegate.semantic.entailment import JUDGES

semantic_app = typer.Typer(help="T_GPT v0.8.1 semantic support and recoverability metrics.",
                           no_args_is_help=True)


@semantic_app.command("metrics")
def metrics(
    samples: Path = typer.Option(..., "--samples", help="JSONL: task, condition, sample, cluster (or UNMAPPED)."),
    relevance: Path = typer.Option(..., "--relevance", help="R(c): the record `semantic relevance` writes, or "
                                                           "JSONL: cluster, relevant (0/1)."),
    reference: str = typer.Option(..., "--reference", help="Condition A: the wider reference."),
    contracted: str = typer.Option(..., "--contracted", help="Condition B: the contracted candidate."),
    recovery: str = typer.Option(..., "--recovery", help="Condition R: B under generic recovery probes."),
    aggregates: Path | None = typer.Option(None, "--aggregates", help="JSONL: task, pool, aggregate, clusters."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the full result here."),
    seed: int = typer.Option(0, "--seed", min=0, max=RNG_SEED_MAX, help="Bootstrap seed (recorded in the JSON)."),
    experiment: str | None = typer.Option(None, "--experiment",
                                          help=f"{', '.join(EXPERIMENT_NAMES[:-1])} or {EXPERIMENT_NAMES[-1]}: "
                                               "declares the primary endpoint."),
    primary: str | None = typer.Option(None, "--primary-endpoint",
                                       help="E1_STAGE / E4_R_META: the metric T_GPT v0.8.1's endpoint is measured by "
                                            "(required for them; E2/E3 take T_GPT v0.8.1's)."),
    exploratory: bool = typer.Option(False, "--exploratory",
                                     help="Allow N < 64 per condition; every output is labelled exploratory."),
    html: Path | None = HTML_OPTION.default,
    markdown: Path | None = MARKDOWN_OPTION.default,
) -> None:
    """Support, D_sem, H_sem, P, ES_LOSS, REC_GAIN, IRREV_OBS, AGG_COVERAGE, MINORITY_RECALL with CIs."""
    from forgegate.jsonio import write_json_atomic
    from forgegate.report import write_reports
    from forgegate.report.semantic_terminal import render_metrics
    from forgegate.results import SemanticMetricsResult
    from forgegate.semantic import Roles, metrics_from_files

    table = metrics_from_files(samples, relevance, Roles(reference, contracted, recovery), aggregates=aggregates,
                               seed=seed, exploratory=exploratory, experiment=experiment,
                               primary=primary)
    result = SemanticMetricsResult.of(table)
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    if html is not None or markdown is not None:
        write_reports(result, html, markdown)
    render_metrics(result, console)
    exit_with(result.gate)


def _judge(judge: str, nli_model: Path | None, backend: str | None, model: str | None, cache: Path | None,  # type: ignore[no-untyped-def]
           base_url: list[str] | None = None):
    from forgegate.pipeline.semantic_judge import make_judge

    return make_judge(judge, nli_model=nli_model, backend=backend, model=model, cache=cache,
                      base_urls=tuple(base_url or ()))


def _close(judge: object) -> None:
    """Close a judge that holds a backend and an event loop (the llm judge), so no request task is left pending."""
    close = getattr(judge, "close", None)
    if callable(close):
        close()


JUDGE_HELP = f"Entailment judge: {', '.join(JUDGES.names())}."
BASE_URL_HELP = "The llm judge's server URL (an openai or ollama backend); repeat to spread load over replicas."


@semantic_app.command("cluster")
def cluster(
    samples: Path = typer.Option(..., "--samples", help="Development JSONL: task, condition, sample, text."),
    questions: Path = typer.Option(..., "--questions", help="JSONL: task, question."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for the draft, frozen codebook and sheets."),
    judge: str = typer.Option(..., "--judge", help=JUDGE_HELP),
    nli_model: Path | None = typer.Option(None, "--nli-model", help="Local MNLI-style model folder (nli)."),
    backend: str | None = typer.Option(None, "--backend", help="Backend for the llm judge."),
    model: str | None = typer.Option(None, "--model", help="Model for the llm judge's backend."),
    base_url: list[str] | None = typer.Option(None, "--base-url", help=BASE_URL_HELP),
    cache: Path | None = typer.Option(None, "--judge-cache", help="JSONL cache of llm judge answers."),
    loose: bool = typer.Option(False, "--loose", help="Reference rule: no contradiction, not both neutral."),
    embedding: bool = typer.Option(True, "--embedding/--no-embedding", help="MiniLM sensitivity analysis."),
    threshold: float = typer.Option(DEFAULT_THRESHOLD, "--embedding-threshold",
                                   help="MiniLM cosine similarity at or above which a text joins a cluster."),
    draft_only: bool = typer.Option(False, "--draft-only", help="Write the draft; freeze later."),
    seed: int = typer.Option(0, "--seed", min=0, max=RNG_SEED_MAX, help="Seed of the sheets' shuffling."),
) -> None:
    """Build the codebook on development samples (bidirectional entailment), export blinded sheets."""
    from forgegate.semantic.codebook import read_questions, read_text_samples
    from forgegate.semantic.develop_confirm import develop
    from forgegate.semantic.embedding import load_embedder

    rows, asked = read_text_samples(samples), read_questions(questions)
    entailment = _judge(judge, nli_model, backend, model, cache, base_url)
    try:
        dev = develop(rows, asked, entailment, out_dir, seed=seed, strict=not loose,
                      embedder=load_embedder() if embedding else None, embedding_threshold=threshold,
                      freeze_now=not draft_only)
    finally:
        _close(entailment)
    unparsed = dev.report["judge"].get("unparsed_answers")
    if unparsed:
        console.print(f"warning: {unparsed} judge answers named no label and were counted neutral; the draft is "
                      "not freezable until they parse")
    for task, st in dev.report["tasks"].items():
        console.print(f"{task}: {st['samples']} samples, {st['unique_texts']} unique, {st['clusters']} clusters, "
                      f"{st['entailment_calls']} entailment calls")
    console.print(f"codebook: {dev.codebook if not draft_only else dev.draft}")


@semantic_app.command("freeze")
def freeze_cmd(
    draft: Path = typer.Option(..., "--draft", help="Draft codebook JSON (labels may be edited)."),
    out: Path = typer.Option(..., "--out", help="Frozen codebook to write (never overwritten)."),
) -> None:
    """Freeze a draft codebook: cluster IDs, labels, exemplars, rule and judge, content hash."""
    from forgegate.semantic.codebook import freeze, load_codebook, write_codebook

    if out.exists():
        raise UsageError(f"{out} exists: a frozen codebook is never overwritten")
    book = freeze(load_codebook(draft, require_frozen=False))
    write_codebook(book, out)
    console.print(f"frozen {out} sha256 {book.content_hash}")
    if book.development_samples is None:
        from forgegate.semantic.separation import REBUILD

        console.print("note: this draft records no development samples, so confirmatory use will be refused; "
                      + REBUILD)


@semantic_app.command("assign")
def assign_cmd(
    codebook: Path = typer.Option(..., "--codebook", help="Frozen codebook."),
    samples: Path = typer.Option(..., "--samples", help="Confirmation JSONL: task, condition, sample, text."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for assignments.jsonl and the report."),
    judge: str = typer.Option(..., "--judge", help=JUDGE_HELP),
    nli_model: Path | None = typer.Option(None, "--nli-model", help="Local MNLI-style model folder (nli)."),
    backend: str | None = typer.Option(None, "--backend", help="Backend for the llm judge."),
    model: str | None = typer.Option(None, "--model", help="Model for the llm judge's backend."),
    base_url: list[str] | None = typer.Option(None, "--base-url", help=BASE_URL_HELP),
    cache: Path | None = typer.Option(None, "--judge-cache", help="JSONL cache of llm judge answers."),
    exploratory: bool = typer.Option(False, "--exploratory",
                                     help="Accept a codebook frozen before it recorded its development samples "
                                          "(separation unchecked, noted in the report)."),
) -> None:
    """Map confirmation samples to frozen cluster IDs or UNMAPPED (no new IDs); development samples are refused."""
    from forgegate.semantic.codebook import read_text_samples
    from forgegate.semantic.develop_confirm import confirm

    entailment = _judge(judge, nli_model, backend, model, cache, base_url)
    try:
        path = confirm(codebook, read_text_samples(samples), entailment, out_dir, confirmatory=not exploratory)
    finally:
        _close(entailment)
    console.print(f"assignments: {path}")


@semantic_app.command("sheets")
def sheets_cmd(
    codebook: Path = typer.Option(..., "--codebook", help="Frozen codebook whose clusters are annotated."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for relevance_sheet.csv."),
    seed: int = typer.Option(0, "--seed", min=0, max=RNG_SEED_MAX, help="Seed of the sheet's shuffling."),
) -> None:
    """The condition-masked relevance sheet of a frozen codebook: two annotators (not the author) fill a copy each."""
    import numpy as np

    from forgegate.semantic.codebook import load_codebook
    from forgegate.semantic.sheets import relevance_sheet

    book = load_codebook(codebook, require_frozen=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    sheet = out_dir / "relevance_sheet.csv"
    if sheet.exists():
        raise UsageError(f"{sheet} exists: annotators may already be filling it; choose another --out")
    rows = relevance_sheet(book, sheet, np.random.default_rng(seed))
    console.print(f"relevance sheet: {sheet} ({rows} clusters); each annotator fills a copy, then "
                  "`forgegate semantic relevance` adjudicates")


@semantic_app.command("relevance")
def relevance_cmd(
    first: str = typer.Option(..., "--first", help="NAME=SHEET.csv of the first annotator."),
    second: str = typer.Option(..., "--second", help="NAME=SHEET.csv of the second annotator."),
    author: str = typer.Option(..., "--author", help="The plan's author (refused as a primary annotator)."),
    adjudication: Path | None = typer.Option(None, "--adjudication", help="CSV: cluster, relevant."),
    adjudicator: str | None = typer.Option(None, "--adjudicator",
                                           help="Who decided the disagreements (recorded; may be the author)."),
    codebook: Path | None = typer.Option(None, "--codebook", help="The frozen codebook (its hash is recorded)."),
    out: Path = typer.Option(..., "--out", help="The adjudicated relevance record (JSONL) for a plan or "
                                                "`semantic metrics`."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the relevance result (kappa, gate) as JSON here."),
) -> None:
    """Adjudicated R(c) from double annotation, with Cohen's kappa; INCOMPLETE while disagreements are open."""
    from datetime import UTC, datetime

    from forgegate.gate.semantic import relevance_gate
    from forgegate.jsonio import write_json_atomic
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
    kappa = report["cohens_kappa"]
    console.print(f"kappa {'NA' if kappa is None else f'{kappa:.3f}'}, {len(report['disagreements'])} "
                  f"disagreements, {len(report['open_disagreements'])} open: {gate.value}")
    exit_with(gate)


@semantic_app.command("compare")
def compare_cmd(
    left: Path = typer.Argument(..., help="A `semantic metrics --json` or `forgegate run --json` result."),
    right: Path = typer.Argument(..., help="The result to set beside it."),
    endpoint: str = typer.Option("ES_LOSS", "--endpoint", help="The T_GPT metric to set side by side."),
    plan: Path | None = typer.Option(None, "--plan", help="The plan whose [[instruments.semantic.bridges]] "
                                                          "declares a bridge between the two results' fields."),
) -> None:
    """Two semantic results side by side; refused when they measure different T_GPT fields and no plan names a
    bridge (FIELD_TOK != FIELD_SEM != FIELD_TRAJ != FIELD_VIS)."""
    from rich.markup import escape

    from forgegate.report.semantic_terminal import fmt
    from forgegate.results import PlanRunResult, SemanticMetricsBody, SemanticMetricsResult
    from forgegate.results.read import read_result_json
    from forgegate.semantic.fields import TABLE_FIELD, across_value, bridged, field_problem, known_endpoints

    tables = []
    for path in (left, right):
        result = read_result_json(path).result
        body: SemanticMetricsBody | None = (
            result if isinstance(result, SemanticMetricsResult)
            else result.semantic.metrics if isinstance(result, PlanRunResult) and result.semantic is not None
            else None)
        if body is None:
            raise UsageError(f"{path}: a {result.kind} result with no semantic metrics table")
        tables.append(body.to_json())  # the field rules (semantic.fields) read the table as its JSON
    bridges: list[dict[str, object]] = []
    if plan is not None:  # bridges are declared in a plan, never read from a result file
        from forgegate.plan import load_plan

        params = load_plan(plan).plan.instruments.semantic
        bridges = [b.model_dump(mode="json") for b in (params.bridges if params is not None else ())]
    problem = field_problem(tables[0], tables[1], left_name=str(left), right_name=str(right), bridges=bridges)
    if problem is not None:
        raise UsageError(problem)
    known = sorted({*known_endpoints(tables[0]), *known_endpoints(tables[1])})
    if endpoint not in known:
        raise UsageError(f"--endpoint {endpoint!r} is not an endpoint of these results (they report "
                         f"{', '.join(known) or 'none'})")
    fields = [str(t.get("field", TABLE_FIELD)) for t in tables]
    bridge = bridged(fields[0], fields[1], bridges)
    console.print(f"field: {fields[0]}" if bridge is None else
                  escape(f"fields: {fields[0]} / {fields[1]}, through the plan's bridge: {bridge['how']}"))
    for path, table in zip((left, right), tables, strict=True):
        entries = across_value(table, endpoint) or [(endpoint, None)]
        values = "; ".join(f"{label} {fmt(v)}" for label, v in entries)
        console.print(escape(f"{path} ({table.get('mode')}): {values}"))


@semantic_app.command("quality-sheet")
def quality_sheet_cmd(
    plan: Path = typer.Argument(..., help="The plan whose Q_task / Q_fact declares a human-review scorer."),
    store: Path | None = typer.Option(None, "--store", help="Run store folder (default ./.forgegate/runs)."),
) -> None:
    """Write the blinded Q_task / Q_fact review sheet(s) a plan's human-review tasks are scored from."""
    from forgegate.pipeline.quality_sheet import review_sheets_for_plan

    for path in review_sheets_for_plan(plan, store):
        console.print(f"wrote {path}: fill each row's score (0 to 1), then run the plan again")


@semantic_app.command("validate")
def validate_cmd(
    sheet: Path = typer.Option(..., "--sheet", help="The validation sheet with same_meaning filled (1/0)."),
    key: Path = typer.Option(..., "--key", help="The key written beside it (validation_key.csv)."),
    minimum: float | None = typer.Option(None, "--minimum", min=0.0, max=1.0,
                                         help="Required human/clustering agreement (below it: INVALID)."),
    seed: int = typer.Option(0, "--seed", min=0, max=RNG_SEED_MAX, help="Bootstrap seed (recorded in the JSON)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the agreement and its word as JSON here."),
) -> None:
    """Score the blinded human validation sheet against the clustering: agreement with bootstrap intervals."""
    from forgegate.gate.semantic import validation_verdict
    from forgegate.jsonio import write_json_atomic
    from forgegate.semantic.bootstrap import BootstrapSettings
    from forgegate.semantic.human_validation import score_validation

    score = score_validation(sheet, key, BootstrapSettings(seed=seed))
    verdict = validation_verdict(score, minimum)
    if json_out is not None:
        from forgegate.results.semantic_checks import SemanticValidationResult

        write_json_atomic(json_out, SemanticValidationResult.of(score, minimum, verdict).to_json())
    for name in ("agreement", "within_cluster", "between_clusters"):
        part = score[name]
        value = "NA" if part["value"] is None else f"{part['value']:.3f}"
        ci = "" if part["ci"] is None else f" [{part['ci'][0]:.3f}, {part['ci'][1]:.3f}]"
        console.print(f"{name.replace('_', ' ')}: {value}{ci} over {part['pairs']} pairs")
    kappa = score["cohens_kappa"]
    console.print(f"Cohen's kappa {'NA' if kappa is None else f'{kappa:.3f}'}; {score['labelled']} of "
                  f"{score['pairs']} pairs labelled")
    console.print(f"{verdict.gate.value}: {verdict.reasons[0].detail}")
    exit_with(verdict.gate)


def register(app: typer.Typer) -> None:
    app.add_typer(semantic_app, name="semantic")
