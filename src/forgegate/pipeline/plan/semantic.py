"""The semantic instrument of a plan: stored generations -> codebook (draft or frozen) -> T_GPT metrics with CIs.

Conditions are arms, tasks are fixture items, the N samples of a task and condition are the
plan's seeds. A plan that names a frozen codebook assigns every sample to a frozen ID or
UNMAPPED under the frozen judge (``confirm``); a plan without one builds a draft codebook on
the run's own samples with the embedding judge (``develop``, not frozen) and every number is
exploratory. The metrics, their bootstrap CIs and the gate word are the semantic library's.
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from forgegate.core.experiments import RECURRENCE_ENDPOINT, primary_endpoint
from forgegate.core.records import StoredResponse
from forgegate.core.verdict import Reason, Verdict
from forgegate.errors import RequestsIncomplete, UsageError
from forgegate.gate.semantic import (
    plan_semantic_verdict,
    relevance_reason,
    semantic_unscored,
    with_quality_guardrails,
)
from forgegate.jsonio import parse_json_strict, read_text_or_input_error
from forgegate.pipeline.plan.checks import SemanticInputs, semantic_inputs
from forgegate.pipeline.plan.cost import condition_cost
from forgegate.pipeline.plan.fixture import fixture_items
from forgegate.pipeline.plan.generate import PlanGenerations
from forgegate.pipeline.plan.quality_scoring import score_quality
from forgegate.pipeline.semantic.judge import draft_judge, frozen_judge, judge_failed
from forgegate.pipeline.semantic.recurrence_sheet import recurrence_outcome
from forgegate.pipeline.semantic.table import gate_table
from forgegate.pipeline.semantic.topology_inputs import finish_topology, topology_inputs
from forgegate.pipeline.semantic.validation import add_validation
from forgegate.plan import SemanticParams
from forgegate.results import PlanSemantic, PlanSemanticMetrics, reason_models
from forgegate.results.plan_cost import PlanCost
from forgegate.results.semantic_blocks import CodebookInfo, RecurrenceBlock, TopologyBlock
from forgegate.semantic import MetricsRequest, Roles, SampleRow, compute_metrics
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.codebook import TextSample
from forgegate.semantic.develop_confirm import confirm, develop
from forgegate.semantic.input_rows import UNMAPPED, read_samples
from forgegate.semantic.relevance_record import ADJUDICATE_COMMAND, SHEETS_COMMAND
from forgegate.semantic.validate import check_sample_sizes, group_samples
from forgegate.store import RunStore

Json = dict[str, Any]


@dataclass(frozen=True)
class SemanticOutcome:
    """The semantic library's metrics JSON (None when nothing could be computed), the codebook used, the verdict."""

    metrics: Json | None
    codebook: Json
    cost: Json
    out_dir: Path
    experiment_note: str | None
    verdict: Verdict
    _: KW_ONLY
    quality: Json | None = None
    """The declared Q_task / Q_fact tables (``pipeline.plan.quality_scoring``); None: none declared."""
    topology: Json | None = None
    """E3_TOPOLOGY's block (``semantic.topology.topology_block``); None for other experiments."""
    recurrence: Json | None = None
    """E4_R_META's blinded recurrence block (``semantic.recurrence.score_recurrence``); None when not declared."""

    def model(self) -> PlanSemantic:
        return PlanSemantic(gate=self.verdict.gate, reasons=reason_models(self.verdict),
                            codebook=CodebookInfo.model_validate(self.codebook),
                            cost=PlanCost.model_validate(self.cost), out_dir=str(self.out_dir),
                            experiment_note=self.experiment_note,
                            metrics=None if self.metrics is None else PlanSemanticMetrics.model_validate(self.metrics),
                            quality=self.quality,
                            topology=None if self.topology is None else TopologyBlock.model_validate(self.topology),
                            recurrence=None if self.recurrence is None
                            else RecurrenceBlock.model_validate(self.recurrence))


def semantic_out_dir(store_path: Path) -> Path:
    """Where a plan run's codebook, sheets and assignments go: beside its run store."""
    return store_path.with_name(store_path.stem + ".semantic")


def judge_store_path(out_dir: Path) -> Path:
    """The run store of an llm judge's requests, in the plan run's semantic folder: a killed run's answers are
    reused when it is scored again."""
    return out_dir / "judge.sqlite"


def text_samples(gens: PlanGenerations) -> list[TextSample]:
    """Every stored answer as ``{task, condition, sample, text}``, ordered by task, condition, seed."""
    rows = [TextSample(task=g.item or "", condition=g.arm, sample=g.seed, text=g.text) for g in gens.generations]
    return sorted(rows, key=lambda s: (s.task, s.condition, int(s.sample)))


def _write_rows(path: Path, rows: list[Json]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _draft_assignments(samples: list[TextSample], questions: dict[str, str], params: SemanticParams,
                       out_dir: Path) -> tuple[Path, Json]:
    judge = draft_judge()
    dev = develop(samples, questions, judge, out_dir, seed=params.bootstrap_seed, freeze_now=False)
    rows: list[Json] = []
    for task, stats in sorted(dev.report["tasks"].items()):
        task_samples = [s for s in samples if s.task == task]
        rows += [{"task": s.task, "condition": s.condition, "sample": s.sample, "cluster": c}
                 for s, c in zip(task_samples, stats["assignments"], strict=True)]
    path = out_dir / "assignments.jsonl"
    _write_rows(path, rows)
    info = {"mode": "draft built on this run's own samples (not frozen): every number is exploratory",
            "frozen": False, "path": str(dev.draft), "content_hash": None, "judge": judge.describe(),
            "clusters": {t: st["clusters"] for t, st in dev.report["tasks"].items()},
            "judge_calls": {t: st["entailment_calls"] for t, st in dev.report["tasks"].items()},
            "sheets": {"validation": str(dev.validation_sheet), "relevance": str(dev.relevance_sheet)}}
    return path, info


def _frozen_assignments(samples: list[TextSample], inputs: SemanticInputs, out_dir: Path, *,
                        confirmatory: bool = True) -> tuple[Path, Json]:
    book, book_path = inputs.codebook, inputs.codebook_path
    assert book is not None and book_path is not None
    judge = frozen_judge(book.rule.judge, book_path, judge_store_path(out_dir))
    try:
        path = confirm(book_path, samples, judge, out_dir, confirmatory=confirmatory, book=book)  # read once
    finally:
        closer = getattr(judge, "close", None)
        if callable(closer):
            closer()
    report = parse_json_strict(read_text_or_input_error(out_dir / "assignment_report.json",
                                                        what="assignment report"))
    info = {"mode": "frozen: samples mapped to frozen IDs or UNMAPPED, no new IDs", "frozen": True,
            "path": str(book_path), "content_hash": book.content_hash, "frozen_at": book.frozen_at,
            "judge": book.rule.judge, "clusters": {t: len(b.clusters) for t, b in book.tasks.items()},
            "assignment_calls": report.get("assignment_calls"),
            "exploratory_changes": report.get("unmapped_new_clusters"),
            "exploratory_merges": report.get("apparent_merges"), "separation": report.get("separation")}
    return path, info


def _stored(gens: PlanGenerations) -> list[StoredResponse]:
    """Every request's current outcome in the run store: the cost guardrails and E3's budgets read these."""
    with RunStore.open(gens.store_path, readonly=True) as store:
        return store.latest()


def _relevance(inputs: SemanticInputs, rows: list[SampleRow], *,
               confirmatory: bool) -> tuple[dict[str, int], Json, Reason]:
    """R(c) for the table, what the result records about it (path, adjudication provenance), and its reason.

    Without a file every mapped cluster counts as relevant (the filtered analysis is the unfiltered one); the
    gate decides whether the table may stand without an adjudicated record (``relevance_reason``).
    """
    record = inputs.relevance_record
    remedy = (f"make the condition-masked sheet with `{SHEETS_COMMAND}`, have two annotators other than the "
              f"plan's author fill a copy each, then `{ADJUDICATE_COMMAND}` and name that record as the plan's "
              "[instruments.semantic] relevance")
    if inputs.relevance is None:
        labels = {r.cluster: 1 for r in rows if r.cluster != UNMAPPED}
        info: Json = {"path": None, "note": "no relevance declared: every cluster counts as relevant, "
                                            "so the filtered analysis is the unfiltered one"}
        source = "no relevance file: every cluster counted as relevant"
    else:
        labels = inputs.relevance
        info = {"path": str(inputs.relevance_path), "clusters": len(labels)}
        source = f"{inputs.relevance_path} is a bare {{cluster, relevant}} file"
    provenance = None if record is None else record.provenance()
    if provenance is not None:
        info["adjudication"] = provenance
    why = relevance_reason(confirmatory=confirmatory, adjudication=provenance, source=source, remedy=remedy)
    return labels, info, why


def score_semantic(gens: PlanGenerations) -> SemanticOutcome:
    """Codebook, assignments and the metrics table for the plan's semantic instrument."""
    loaded = gens.locked.loaded
    params = loaded.plan.instruments.semantic
    assert params is not None and params.recovery is not None
    items = fixture_items(gens.locked)
    inputs = semantic_inputs(loaded, [i.id for i in items], gens.locked.contents)  # the bytes the plan hash covers
    out_dir = semantic_out_dir(gens.store_path)
    samples = text_samples(gens)
    stored = _stored(gens)
    cost = condition_cost(loaded.plan, stored, len(items))  # T_GPT v0.8.1's cost guardrails per condition
    if not samples:
        verdict = semantic_unscored("semantic", "no stored generation to score")
        return SemanticOutcome(None, {"mode": "none"}, cost, out_dir, None, verdict)
    if inputs.codebook is None:
        path, book_info = _draft_assignments(samples, {i.id: i.prompt for i in items}, params, out_dir)
    else:
        try:
            path, book_info = _frozen_assignments(samples, inputs, out_dir, confirmatory=params.confirmatory)
        except RequestsIncomplete as exc:  # a judge request failed for good: no assignment, no table
            book = inputs.codebook
            assert book is not None
            verdict = judge_failed(RequestsIncomplete(f"{exc}; the judge's store: {judge_store_path(out_dir)}"))
            return SemanticOutcome(None, {"mode": "frozen: no sample assigned, a judge request failed for good",
                                          "frozen": True, "path": str(inputs.codebook_path),
                                          "content_hash": book.content_hash}, cost, out_dir, None, verdict)
    rows: list[SampleRow] = read_samples(path)
    exploratory = not params.confirmatory
    relevance, relevance_info, relevance_why = _relevance(inputs, rows, confirmatory=params.confirmatory)
    grouped = group_samples(rows)
    try:
        small = check_sample_sizes(grouped, exploratory)
    except UsageError as exc:  # a confirmatory plan that lost samples to failed requests
        verdict = semantic_unscored("semantic N >= 64", str(exc))
        return SemanticOutcome(None, book_info, cost, out_dir, None, verdict)
    experiment: str | None = params.experiment
    note: str | None = None
    try:  # the plan's schema already refused a missing or conflicting declaration; this guards older locks
        primary_endpoint(experiment, params.primary_endpoint)
    except UsageError as exc:
        note = f"{exc}; every endpoint of this table is labelled exploratory"
        experiment = None
    declared = params.primary_endpoint if experiment is not None else None
    topology = topology_inputs(loaded, params, grouped, relevance, stored, gens.locked)
    request = MetricsRequest(grouped, relevance, Roles(params.reference, params.contracted, params.recovery),
                             BootstrapSettings(seed=params.bootstrap_seed, n_resamples=params.bootstrap_resamples),
                             exploratory=exploratory, small_conditions=tuple(small), experiment=experiment,
                             primary_endpoint=declared, aggregates=topology.pools,
                             tau=params.tau_support, minimum_count=params.minimum_count,
                             sensitivity=params.sensitivity)
    metrics = gate_table(compute_metrics(request))
    metrics["inputs"] = {"assignments": str(path), "relevance": relevance_info}
    metrics["declared_experiment"] = params.experiment
    metrics["bridges"] = [b.model_dump(mode="json") for b in params.bridges]  # the plan's, for `semantic compare`
    verdict = plan_semantic_verdict(metrics["reasons"], draft_codebook=not book_info["frozen"],
                                    relevance=relevance_why)
    quality = score_quality(loaded, gens.generations, {i.id: i.prompt for i in items}, out_dir, request.settings)
    verdict = with_quality_guardrails(verdict, quality)
    verdict = add_validation(loaded, params, inputs.codebook, verdict, book_info, gens.locked.contents)
    e3, verdict = finish_topology(params, topology, metrics, verdict)
    e4, verdict = recurrence_outcome(loaded, params, samples, {i.id: i.prompt for i in items}, out_dir, verdict)
    return SemanticOutcome(metrics, book_info, cost, out_dir, note, verdict, quality=quality, topology=e3,
                           recurrence=e4)


def endpoint_value(outcome: SemanticOutcome, endpoint: str, control: str, candidate: str) -> Json:
    """A comparison's primary endpoint from the across-task table: value and CI (or why there is none)."""
    metrics = outcome.metrics
    if metrics is None:
        return {"endpoint": endpoint, "value": None, "ci": None, "note": "metrics not computed"}
    across = metrics["across_tasks"]
    if endpoint in ("ES_LOSS", "REC_GAIN", "IRREV_OBS"):
        entry = across[endpoint]
        return {"endpoint": endpoint, "value": entry["value"], "ci": entry["ci"], "n_tasks": entry["n_tasks"]}
    if endpoint in ("D_sem", "H_sem", "P"):
        conds = across["conditions"]
        return {"endpoint": endpoint, "control": conds.get(control, {}).get(endpoint),
                "candidate": conds.get(candidate, {}).get(endpoint)}
    if endpoint == RECURRENCE_ENDPOINT:
        block = outcome.recurrence or {}
        diff = block.get("difference") or {}
        return {"endpoint": endpoint, "value": diff.get("value"), "ci": diff.get("ci"),
                "comparison": f"{block.get('structural')} - {block.get('style_control')} (blinded recurrence rate)",
                **({} if diff else {"note": "the blinded recurrence sheet is not filled yet"})}
    if endpoint in ("AGG_COVERAGE", "MINORITY_RECALL") and outcome.topology and outcome.topology.get("scored"):
        part = [outcome.topology["primary"], *outcome.topology["secondary"]]
        diff = next(p for p in part if p["endpoint"] == endpoint)["difference"]
        return {"endpoint": endpoint, "value": diff["value"], "ci": diff["ci"],
                "comparison": f"{outcome.topology['candidate']} - {outcome.topology['control']} (aggregates)"}
    return {"endpoint": endpoint, "value": None, "ci": None,
            "note": f"{endpoint} needs the E3_TOPOLOGY aggregates ([instruments.semantic.aggregation])"}
