"""The semantic codebook: build on development samples, freeze with a content hash, assign confirmation samples."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.errors import InputError, UsageError
from forgegate.jsonio import (
    JsonProblem,
    decode_utf8_or_input_error,
    parse_json_strict,
    read_jsonl_models,
    read_text_or_input_error,
    validation_to_input_error,
    write_json_atomic,
)
from forgegate.semantic.clustering import cluster_by_entailment, matching_representatives
from forgegate.semantic.entailment import EntailmentJudge
from forgegate.semantic.input_rows import UNMAPPED
from forgegate.semantic.sheet_reader import one_row_per_key

SCHEMA: Literal["forgegate.semantic.codebook/1"] = "forgegate.semantic.codebook/1"
MATCHING = "greedy: first cluster (in ID order) whose representative is equivalent under the rule"


class TextSample(BaseModel):
    """One generation: ``{"task", "condition", "sample", "text"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    condition: str = Field(min_length=1)
    sample: int | str
    text: str


def sample_hash(sample: TextSample) -> str:
    """sha256 of one generation's identity: its task, condition, sample ID (as text) and stripped text.

    All four, not the text alone: short answers repeat legitimately ("Paris"), and a fresh generation
    that says what a development one said is new data. The same task, condition, sample ID *and* text
    is the same generation reused.
    """
    body = json.dumps([sample.task, sample.condition, str(sample.sample), sample.text.strip()], ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class TaskQuestion(BaseModel):
    """A task's question (prepended to answers for entailment): ``{"task", "question"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    question: str = Field(min_length=1)


class CodebookCluster(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    label: str
    representative: str
    exemplars: list[str]
    dev_count: int = Field(ge=1)


class CodebookTask(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    clusters: list[CodebookCluster]


class AssignmentRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    criterion: Literal["bidirectional-entailment"] = "bidirectional-entailment"
    strict: bool
    matching: str = MATCHING
    judge: dict[str, Any]


class EmbeddingTask(BaseModel):
    """One task's embedding clustering beside the entailment one (the development phase's sensitivity analysis)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entailment_clusters: int
    embedding_clusters: int
    adjusted_rand_index: float | None


class EmbeddingSensitivity(BaseModel):
    """T_GPT v0.8.1's "embedding clustering as sensitivity analysis" on the development samples, as run before the
    freeze: the embedding model, its cosine threshold and, per task, its agreement with the entailment clusters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    threshold: float
    tasks: dict[str, EmbeddingTask]


class Codebook(BaseModel):
    """Draft (``content_hash`` None) or frozen codebook; a frozen one is refused if its hash does not match."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["forgegate.semantic.codebook/1"] = Field("forgegate.semantic.codebook/1", alias="schema")
    frozen_at: str | None = None
    rule: AssignmentRule
    tasks: dict[str, CodebookTask]
    content_hash: str | None = None
    development_samples: list[str] | None = None
    """sha256 (``sample_hash``) of every development sample the codebook was built on, sorted: a confirmation
    run refuses to score any of them (T_GPT v0.8.1: the codebook is built "on development data only").
    None: a codebook written before forgegate recorded them; it is refused for confirmatory use."""
    embedding_sensitivity: EmbeddingSensitivity | None = None
    """The embedding sensitivity run on the development samples, recorded before the freeze (``semantic cluster``
    runs it unless ``--no-embedding``). None: not run; a confirmatory plan refuses such a codebook."""

    def hash_payload(self) -> str:
        # a field a codebook was frozen without keeps the hash it was frozen with; present, it is hashed too
        optional = ("development_samples", "embedding_sensitivity")
        skip = {"content_hash", "frozen_at"} | {name for name in optional if getattr(self, name) is None}
        body = self.model_dump(by_alias=True, exclude=skip)
        return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False,
                                         separators=(",", ":")).encode("utf-8")).hexdigest()

    @property
    def frozen(self) -> bool:
        return self.content_hash is not None


def read_text_samples(path: Path) -> list[TextSample]:
    """The samples of a JSONL file, one row per (task, condition, sample): a sample id given twice would count one
    generation twice in the codebook's cluster sizes, so it is refused naming both lines (``sheet_reader``)."""
    rows = read_jsonl_models(path, TextSample)
    keyed = one_row_per_key(path, "sample", ((line, json.dumps([r.task, r.condition, str(r.sample)],
                                                                ensure_ascii=False), r) for line, r in rows))
    return [row for _, row in keyed.values()]


def read_questions(path: Path) -> dict[str, str]:
    return {row.task: row.question for _, row in read_jsonl_models(path, TaskQuestion)}


def _by_task(samples: list[TextSample], questions: dict[str, str], where: str) -> dict[str, list[TextSample]]:
    grouped: dict[str, list[TextSample]] = defaultdict(list)
    for s in samples:
        if s.task not in questions:
            raise InputError(where, f"task {s.task!r} has no question", field="task",
                             hint="every task needs its question: it is prepended for entailment")
        grouped[s.task].append(s)
    return dict(grouped)


def build_codebook(samples: list[TextSample], questions: dict[str, str], judge: EntailmentJudge,
                   strict: bool = True, max_exemplars: int = 3) -> tuple[Codebook, dict[str, Any]]:
    """A draft codebook from development samples, and per task: call accounting and each sample's cluster ID."""
    tasks: dict[str, CodebookTask] = {}
    stats: dict[str, Any] = {}
    for task, rows in sorted(_by_task(samples, questions, "development samples").items()):
        texts = [r.text for r in rows]
        result = cluster_by_entailment(questions[task], texts, judge, strict)
        clusters = []
        for k, (rep, members) in enumerate(zip(result.representatives, result.members(texts), strict=True)):
            exemplars = list(dict.fromkeys(m.strip() for m in members))[:max_exemplars]
            clusters.append(CodebookCluster(id=f"{task}:c{k + 1}", label=rep[:80], representative=rep,
                                            exemplars=exemplars, dev_count=len(members)))
        tasks[task] = CodebookTask(question=questions[task], clusters=clusters)
        stats[task] = {"samples": len(texts), "unique_texts": result.unique_texts, "clusters": result.n_clusters,
                       "entailment_calls": result.calls,
                       "assignments": [f"{task}:c{k + 1}" for k in result.labels]}
    rule = AssignmentRule(strict=strict, judge=judge.describe())
    hashes = sorted({sample_hash(s) for s in samples})
    return Codebook(schema=SCHEMA, rule=rule, tasks=tasks, development_samples=hashes), stats


def freeze(draft: Codebook) -> Codebook:
    """The frozen codebook: same content, a timestamp and the content hash."""
    if draft.frozen:
        raise UsageError("this codebook is already frozen")
    return draft.model_copy(update={"frozen_at": datetime.now(UTC).isoformat(timespec="seconds"),
                                    "content_hash": draft.hash_payload()})


def write_codebook(codebook: Codebook, path: Path) -> None:
    write_json_atomic(path, codebook.model_dump(by_alias=True))


def load_codebook(path: Path, *, require_frozen: bool, raw: bytes | None = None) -> Codebook:
    """Read a codebook; a frozen one must match its content hash (edits after the freeze are refused). ``raw``:
    the file's bytes as the caller read (and hashed) them, so the file is not read again."""
    try:
        text = read_text_or_input_error(path) if raw is None else decode_utf8_or_input_error(path, raw)
        data = parse_json_strict(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"bad JSON: {exc.msg}", line=exc.lineno) from None
    except JsonProblem as exc:
        raise InputError(path, exc.message, field=exc.field, hint=exc.hint) from None
    try:
        book = Codebook.model_validate(data)
    except ValidationError as exc:
        raise validation_to_input_error(path, None, exc) from None
    if book.frozen and book.content_hash != book.hash_payload():
        raise InputError(path, "content hash does not match: the frozen codebook was edited after the freeze",
                         field="content_hash", hint="freeze a new codebook from the draft instead")
    if require_frozen and not book.frozen:
        raise InputError(path, "this codebook is a draft", field="content_hash",
                         hint="run `forgegate semantic freeze` before assigning confirmation samples")
    return book


def check_judge_matches(book: Codebook, judge: EntailmentJudge) -> None:
    """The assignment rule froze its judge: assigning with another one is refused."""
    frozen, given = book.rule.judge, judge.describe()
    keys = ("judge", "model", "backend")
    if any(frozen.get(k) != given.get(k) for k in keys):
        raise UsageError(f"the codebook's frozen judge is {[frozen.get(k) for k in keys]}, "
                         f"this judge is {[given.get(k) for k in keys]}: assign with the frozen judge")


def assign(book: Codebook, samples: list[TextSample], judge: EntailmentJudge) -> tuple[list[dict[str, Any]], Any]:
    """Frozen ID or UNMAPPED for every confirmation sample (no new IDs), plus the exploratory split/merge report."""
    if not book.frozen:
        raise UsageError("assign needs a frozen codebook")
    check_judge_matches(book, judge)
    questions = {t: b.question for t, b in book.tasks.items()}
    rows: list[dict[str, Any]] = []
    unmapped: dict[str, list[str]] = defaultdict(list)
    bridges: dict[str, dict[tuple[str, ...], list[str]]] = defaultdict(lambda: defaultdict(list))
    before = judge.calls
    for task, items in sorted(_by_task(samples, questions, "confirmation samples").items()):
        reps = [c.representative for c in book.tasks[task].clusters]
        ids = [c.id for c in book.tasks[task].clusters]
        memo: dict[str, list[str]] = {}
        for s in items:
            key = s.text.strip()
            if key not in memo:
                found = matching_representatives(questions[task], key, reps, judge, book.rule.strict)
                memo[key] = [ids[i] for i in found]
            # the frozen rule: the first equivalent cluster in ID order; a text equivalent to more is a bridge
            cluster = memo[key][0] if memo[key] else UNMAPPED
            rows.append({"task": s.task, "condition": s.condition, "sample": s.sample, "cluster": cluster})
            if cluster == UNMAPPED:
                unmapped[task].append(key)
            elif len(memo[key]) > 1:
                bridges[task][tuple(memo[key])].append(key)
    calls = judge.calls - before
    report = exploratory_changes(book, unmapped, judge)
    report["apparent_merges"] = apparent_merges(bridges)
    report["assignment_calls"] = calls
    return rows, report


def exploratory_changes(book: Codebook, unmapped: dict[str, list[str]], judge: EntailmentJudge) -> dict[str, Any]:
    """Would-be new clusters among the UNMAPPED texts (apparent splits), reported as exploratory only."""
    splits: dict[str, list[dict[str, Any]]] = {}
    for task, texts in sorted(unmapped.items()):
        result = cluster_by_entailment(book.tasks[task].question, texts, judge, book.rule.strict)
        splits[task] = [{"size": len(m), "exemplar": m[0]} for m in result.members(texts)]
    return {"label": "exploratory: changes no primary score", "unmapped_new_clusters": splits}


def apparent_merges(bridges: dict[str, dict[tuple[str, ...], list[str]]]) -> dict[str, list[dict[str, Any]]]:
    """Frozen clusters that confirmation texts bridge (a text equivalent to two or more frozen representatives):
    apparent merges after the freeze, reported as exploratory only. The sample keeps the first ID (the frozen
    greedy rule), so no primary score changes (T_GPT v0.8.1 split_merge_rule)."""
    return {task: [{"clusters": list(ids), "size": len(texts), "exemplar": texts[0]}
                   for ids, texts in sorted(groups.items())]
            for task, groups in sorted(bridges.items())}
