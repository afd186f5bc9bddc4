"""An entailment judge's record: what a codebook's assignment rule (``rule.judge``) and a plan run's codebook block
(``semantic.codebook.judge``) say about the judge that clustered the answers.

Each judge writes it through its ``describe()``: ``nli`` (the cross-encoder: ``model``, ``model_type``, ``labels``,
``question_prepended``), ``llm`` (``backend``, ``model``, ``base_urls``, ``prompt``, ``temperature``,
``unparsed_answers``) and the draft's ``embedding`` judge (``model``, ``threshold``, ``meaning``). One model holds
every judge's fields rather than one model per judge: which judges exist is the judge registry's to say
(``semantic.entailment.JUDGES``), not a second list here. A codebook frozen before a field existed (an llm record
without ``base_urls``) lacks it, so every field but ``judge`` is optional and the JSON keeps exactly the keys the
record was written with (``Sparse``), in the order the judges write them.
"""

from __future__ import annotations

from forgegate.results.base import Sparse


class JudgeRecord(Sparse):
    """One judge's self-description, as its codebook froze it (an unknown key is refused by name)."""

    judge: str
    """The judge's registered name (``nli``, ``llm``) or ``embedding`` (the draft judge)."""
    backend: str | None = None
    """llm: the backend that answered the prompts."""
    model: str | None = None
    """The judge's model: the nli model folder, the llm's model name, the embedding model."""
    base_urls: list[str] | None = None
    """llm: the servers asked (a codebook frozen before they were recorded lacks them)."""
    prompt: str | None = None
    """llm: which entailment prompt was sent."""
    temperature: float | int | None = None
    """llm: the sampling temperature (0: greedy); a whole number stays as written."""
    unparsed_answers: int | None = None
    """llm: answers naming no label (counted as neutral)."""
    model_type: str | None = None
    """nli: the cross-encoder's architecture (its config's ``model_type``)."""
    labels: dict[str, str] | None = None
    """nli: the classifier's output index -> entailment label."""
    question_prepended: bool | None = None
    """nli: whether the question was put before each answer."""
    threshold: float | int | None = None
    """embedding: the cosine similarity at or above which two answers count as equivalent; kept as written."""
    meaning: str | None = None
    """embedding: what its 'entailment' means, in words."""
