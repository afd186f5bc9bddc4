"""`forgegate semantic ...`: wiring for the T_GPT semantic support metrics, codebook and annotation."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console, distinct_outputs, exit_with
from forgegate.cli.options import HTML_OPTION, MARKDOWN_OPTION
from forgegate.core.experiments import EXPERIMENT_NAMES
from forgegate.core.limits import RNG_SEED_MAX
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
    store: Path | None = typer.Option(None, "--store", help="E3_TOPOLOGY: the run store its token budgets are "
                                                           "summed from (else the rows' total_tokens)."),
    cost_arms: list[str] = typer.Option([], "--cost-arms", help="E3_TOPOLOGY with --store: AGGREGATE=ARM[,ARM], "
                                                                "the store arms each aggregate cost (repeat)."),
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
    from forgegate.pipeline.semantic.commands import semantic_metrics
    from forgegate.report import write_reports
    from forgegate.report.semantic_terminal import render_metrics
    from forgegate.semantic import Roles

    distinct_outputs(json=json_out, html=html, markdown=markdown)
    result = semantic_metrics(samples, relevance, Roles(reference, contracted, recovery), aggregates=aggregates,
                              seed=seed, exploratory=exploratory, experiment=experiment, primary=primary,
                              json_out=json_out, store=store, cost_arms=cost_arms)
    if html is not None or markdown is not None:
        write_reports(result, html, markdown)
    render_metrics(result, console)
    exit_with(result.gate)


def _judge(judge: str, nli_model: Path | None, backend: str | None, model: str | None, cache: Path | None,  # type: ignore[no-untyped-def]
           base_url: list[str] | None = None):
    from forgegate.pipeline.semantic.judge import make_judge

    return make_judge(judge, nli_model=nli_model, backend=backend, model=model, cache=cache,
                      base_urls=tuple(base_url or ()))


def _close(judge: object) -> None:
    """Close a judge that holds a backend and an event loop (the llm judge), so no request task is left pending."""
    close = getattr(judge, "close", None)
    if callable(close):
        close()


JUDGE_HELP = f"Entailment judge: {', '.join(JUDGES.names())}."
JUDGE_CACHE_HELP = ("Run store (SQLite) of the llm judge's requests: every raw answer is kept, and the same "
                    "command resumes from it.")
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
    cache: Path | None = typer.Option(None, "--judge-cache", help=JUDGE_CACHE_HELP),
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
    from forgegate.pipeline.semantic.commands import freeze_codebook

    book = freeze_codebook(draft, out)
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
    cache: Path | None = typer.Option(None, "--judge-cache", help=JUDGE_CACHE_HELP),
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
    from forgegate.pipeline.semantic.commands import write_relevance_sheet

    sheet, rows = write_relevance_sheet(codebook, out_dir, seed=seed)
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
    from forgegate.pipeline.semantic.commands import adjudicate_relevance

    done = adjudicate_relevance(first, second, author=author, adjudication=adjudication, adjudicator=adjudicator,
                                codebook=codebook, out=out, json_out=json_out)
    report = done.report
    kappa = report["cohens_kappa"]
    console.print(f"kappa {'NA' if kappa is None else f'{kappa:.3f}'}, {len(report['disagreements'])} "
                  f"disagreements, {len(report['open_disagreements'])} open: {done.gate.value}")
    exit_with(done.gate)


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

    from forgegate.pipeline.semantic.commands import compare_semantic
    from forgegate.report.semantic_terminal import fmt

    shown = compare_semantic(left, right, endpoint=endpoint, plan=plan)
    console.print(escape(f"field: {shown.fields[0]}" if shown.bridge is None else
                         f"fields: {shown.fields[0]} / {shown.fields[1]}, through the plan's bridge: {shown.bridge}"))
    for side in shown.sides:
        values = "; ".join(f"{label} {fmt(v)}" for label, v in side.values)
        console.print(escape(f"{side.path} ({side.mode}): {values}"))


@semantic_app.command("quality-sheet")
def quality_sheet_cmd(
    plan: Path = typer.Argument(..., help="The plan whose Q_task / Q_fact declares a human-review scorer."),
    store: Path | None = typer.Option(None, "--store", help="Run store folder (default ./.forgegate/runs)."),
) -> None:
    """Write the blinded Q_task / Q_fact review sheet(s) a plan's human-review tasks are scored from."""
    from forgegate.pipeline.plan.quality_sheet import review_sheets_for_plan

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
    from forgegate.pipeline.semantic.commands import validate_clustering

    done = validate_clustering(sheet, key, minimum=minimum, seed=seed, json_out=json_out)
    score, verdict = done.score, done.verdict
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
