"""Entailment judges, registered by name: an MNLI-style cross-encoder (`nli`) and an LLM judge (`llm`).

A judge answers batches of directed (premise, hypothesis) pairs about one question with
``entailment`` / ``neutral`` / ``contradiction``, caches every answer and counts the calls it
really made (cache hits are not calls). The LLM judge's calls are requests through the run engine
into a run store, handed in by the pipeline (:class:`JudgeRequests`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from forgegate.errors import InputError, RequestsIncomplete
from forgegate.registry import Registry

if TYPE_CHECKING:  # core.records loads pydantic, and --help reads JUDGES: imported where a request is built
    from forgegate.core.records import GenerationRequest

Label = Literal["entailment", "neutral", "contradiction"]
LABELS: tuple[Label, ...] = ("entailment", "neutral", "contradiction")


class EntailmentJudge(Protocol):
    """Directed entailment between two answers to ``question``."""

    name: str
    calls: int

    def judge(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[Label]: ...

    def describe(self) -> dict[str, Any]:
        """What the codebook records as the assignment rule's judge."""
        ...


JudgeFactory = Callable[..., EntailmentJudge]
JUDGES: Registry[JudgeFactory] = Registry("entailment judge")
"""Every entailment judge, registered with its class. What each needs is declared on the class (``needs``:
the option its factory takes first, and how the CLI asks for it; ``takes_backend``: that option is a backend the
pipeline builds and hands in; ``rebuilt_from``: the fields of a frozen codebook's judge record that give its
options back), and read through :func:`judge_capability`; no other module lists judges."""


def judge_capability(name: str, attribute: str) -> Any:
    """What judge ``name``'s registered class declares as ``attribute``; a class that does not declare it is an
    error, never a guess."""
    factory = JUDGES.get(name)
    if not hasattr(factory, attribute):
        raise TypeError(f"entailment judge '{name}' declares no '{attribute}' capability: set {attribute} on "
                        f"{getattr(factory, '__qualname__', factory)!r}")
    return getattr(factory, attribute)


@dataclass
class _Cache:
    """Answers by (question, premise, hypothesis); the judge only sends the pairs it has not seen."""

    answers: dict[tuple[str, str, str], Label] = field(default_factory=dict)

    def split(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        todo: list[tuple[str, str]] = []
        for pair in pairs:
            if (question, *pair) not in self.answers and pair not in todo:
                todo.append(pair)
        return todo

    def read(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[Label]:
        return [self.answers[(question, *p)] for p in pairs]


def mnli_label_index(id2label: dict[int, str], where: str) -> dict[int, Label]:
    """Map a sequence classifier's labels onto entailment / neutral / contradiction (all three required)."""
    mapping: dict[int, Label] = {}
    for idx, raw in id2label.items():
        name = str(raw).strip().lower()
        for label in LABELS:
            if name == label or name.startswith(label[:7]):
                mapping[int(idx)] = label
    if sorted(mapping.values()) != sorted(LABELS):
        raise InputError(where, f"labels {sorted(id2label.values())} are not MNLI-style", field="id2label",
                         hint="an NLI judge needs entailment, neutral and contradiction classes")
    return mapping


@JUDGES.register("nli")
class NliJudge:
    """A local transformers sequence-classification MNLI model; the question is prepended to both texts.

    As in Farquhar et al.'s reference (``question + " " + answer``), but batched and cached.
    """

    name = "nli"
    needs: ClassVar[tuple[str, str]] = ("nli_model", "--nli-model DIR (a local MNLI-style sequence classifier)")
    """Capability: the option its factory takes first, and how the CLI asks for it."""
    takes_backend: ClassVar[bool] = False
    """Capability: it loads a local model itself; the pipeline builds no backend for it."""
    rebuilt_from: ClassVar[dict[str, str]] = {"nli_model": "model"}
    """Capability: option -> the field of a frozen codebook's judge record (:meth:`describe`) that gives it."""

    def __init__(self, model: str | Path, *, batch_size: int = 16, prepend_question: bool = True,
                 max_length: int = 512) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        folder = Path(model)
        if not (folder / "config.json").is_file():
            raise InputError(folder, "not a local transformers model folder (no config.json)",
                             hint="pass the directory of an MNLI-style model you have locally")
        self.path = folder
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(str(folder), local_files_only=True)
        self.model.eval()
        self.labels = mnli_label_index(dict(self.model.config.id2label), str(folder / "config.json"))
        self.batch_size = batch_size
        self.prepend_question = prepend_question
        self.max_length = max_length
        self.calls = 0
        self.batches = 0
        self._cache = _Cache()
        self._torch = torch

    def _text(self, question: str, answer: str) -> str:
        return f"{question} {answer}" if self.prepend_question and question else answer

    def judge(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[Label]:
        todo = self._cache.split(question, pairs)
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start:start + self.batch_size]
            enc = self.tokenizer([self._text(question, p) for p, _ in chunk],
                                 [self._text(question, h) for _, h in chunk],
                                 padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
            with self._torch.no_grad():
                logits = self.model(**enc).logits
            for pair, idx in zip(chunk, logits.argmax(dim=-1).tolist(), strict=True):
                self._cache.answers[(question, *pair)] = self.labels[int(idx)]
            self.calls += len(chunk)
            self.batches += 1
        return self._cache.read(question, pairs)

    def describe(self) -> dict[str, Any]:
        return {"judge": "nli", "model": str(self.path), "model_type": self.model.config.model_type,
                "labels": {str(k): v for k, v in sorted(self.labels.items())},
                "question_prepended": self.prepend_question}


def farquhar_prompt(question: str, text1: str, text2: str) -> str:
    """The entailment prompt of Farquhar et al. 2024's reference implementation (LLM judge)."""
    return (f'We are evaluating answers to the question "{question}"\n'
            "Here are two possible answers:\n"
            f"Possible Answer 1: {text1}\nPossible Answer 2: {text2}\n"
            "Does Possible Answer 1 semantically entail Possible Answer 2? "
            "Respond only with entailment, contradiction, or neutral.\n"
            "Response:")


def parse_llm_label(text: str) -> Label | None:
    """The label the answer starts with (first 30 characters, as the reference reads it); None if none."""
    head = text.strip().lower()[:30]
    found = [(head.find(label), label) for label in LABELS if label in head]
    return min(found)[1] if found else None


class JudgeRequests(Protocol):
    """How an LLM judge's prompts are answered. The pipeline hands in the run engine's store-backed asker
    (``forgegate.run.judge_requests.StoredJudgeRequests``): retries, resume after a kill, one progress display.
    An instrument runs no engine of its own and builds no backend (the import contracts forbid both)."""

    generated: int
    reused: int

    def answer(self, requests: Sequence[GenerationRequest]) -> list[str | None]:
        """Each request's answer text, in order; None where it failed for good."""
        ...

    def describe(self) -> dict[str, Any]:
        """Backend, model and the servers asked: what a codebook records to rebuild the judge."""
        ...

    def close(self) -> None: ...


@JUDGES.register("llm")
class LlmJudge:
    """Any forgegate backend answering the Farquhar prompt at temperature 0, each call a stored request.

    An answer naming no label counts as ``neutral`` (not entailment) and is counted in ``unparsed``. A call
    that failed for good is no label at all: :class:`RequestsIncomplete`, never a guess.
    """

    name = "llm"
    needs: ClassVar[tuple[str, str]] = ("backend", "--backend NAME")
    """Capability: the option its factory takes first, and how the CLI asks for it."""
    takes_backend: ClassVar[bool] = True
    """Capability: it answers through a backend the pipeline builds and hands in (semantic builds none)."""
    rebuilt_from: ClassVar[dict[str, str]] = {"backend": "backend", "model": "model"}
    """Capability: option -> the field of a frozen codebook's judge record (:meth:`describe`) that gives it."""

    def __init__(self, requests: JudgeRequests, *, max_tokens: int = 8) -> None:
        self.requests = requests
        self.max_tokens = max_tokens
        self.calls = 0
        """Pairs this judge needed answered (an answer stored by an earlier run counts: the number a codebook
        reports must not depend on whether the run was resumed; ``requests.reused`` says how many were)."""
        self.unparsed = 0
        self._cache = _Cache()

    def request(self, question: str, pair: tuple[str, str]) -> GenerationRequest:
        """Exactly what is sent for one directed pair (its hash is the request's key in the store)."""
        from forgegate.core.records import GenerationRequest

        return GenerationRequest(prompt=farquhar_prompt(question, *pair), max_tokens=self.max_tokens,
                                 temperature=0.0, top_p=1.0, seed=0)

    def judge(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[Label]:
        todo = self._cache.split(question, pairs)
        if todo:
            answers = self.requests.answer([self.request(question, pair) for pair in todo])
            failed = sum(text is None for text in answers)
            if failed:
                raise RequestsIncomplete(
                    f"{failed} of {len(todo)} entailment requests to the llm judge failed for good (after "
                    f"retries) on the question {question[:60]!r}: no codebook rests on a missing answer (the "
                    "judge's run store keeps every answer that arrived; asked again, it sends only the rest)")
            for pair, text in zip(todo, answers, strict=True):
                label = parse_llm_label(str(text))
                if label is None:
                    self.unparsed += 1
                    label = "neutral"
                self._cache.answers[(question, *pair)] = label
            self.calls += len(todo)
        return self._cache.read(question, pairs)

    def close(self) -> None:
        """End the asker (its backend and event loop)."""
        self.requests.close()

    def describe(self) -> dict[str, Any]:
        transport = self.requests.describe()
        return {"judge": "llm", "backend": transport.get("backend"), "model": transport.get("model"),
                "base_urls": transport.get("base_urls", []), "prompt": "Farquhar et al. 2024 entailment prompt",
                "temperature": 0.0, "unparsed_answers": self.unparsed}
