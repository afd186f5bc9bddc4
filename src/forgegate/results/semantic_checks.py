"""``semantic relevance --json`` and ``semantic validate --json``: the annotation checks as registered result kinds.

Both commands wrote a hand-built dict before they had a kind (now every ``--json`` is a registered result kind,
with a committed schema). The fields are those dicts' fields, in their order, plus ``kind`` and
``schema_version``; the JSON is the model's dump. The bootstrap a number was computed with is
:class:`BootstrapRecord`, the one model every semantic table that carries ``bootstrap`` writes it through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from forgegate.core.verdict import Gate, Verdict
from forgegate.results.base import SCHEMA_VERSION, ReasonModel, SchemaVersion, Strict, reason_models


class BootstrapRecord(Strict):
    """What fixes a bootstrap's numbers: seed, resamples, method, level and the library that drew them."""

    seed: int
    """The seed of the named per-unit generators (``BootstrapSettings.rng_for``)."""
    n_resamples: int
    """How many resamples each interval is taken over."""
    method: str
    """The interval method (``percentile``)."""
    confidence_level: float
    """The interval's confidence level."""
    library: str
    """The library and version that resampled (``scipy X.Y.Z``)."""


class Adjudication(Strict):
    """Two annotators' labels of one sheet compared: agreement, kappa, and the disagreements left open."""

    annotators: list[str]
    """The two primary annotators, first then second."""
    author: str | None = None
    """The plan's author (refused as a primary annotator); absent for a validation sheet."""
    clusters: int
    """How many rows (clusters, or validation pairs) both sheets label."""
    observed_agreement: float
    """Share of rows both annotators labelled alike."""
    cohens_kappa: float | None
    """Cohen's kappa between the two annotators; null when chance agreement is 1."""
    disagreements: list[str]
    """The rows the annotators labelled differently."""
    adjudicated: list[str]
    """The disagreements the adjudication file settled."""
    open_disagreements: list[str]
    """The disagreements nobody settled yet (the result is INCOMPLETE while any is open)."""
    complete: bool
    """True when no disagreement is open (a relevance record is written only then)."""


class SemanticRelevanceResult(Adjudication):
    """Two annotators' relevance labels, their agreement, and what is left open (``semantic relevance``)."""

    author: str
    """The plan's author (refused as a primary annotator)."""
    kind: Literal["semantic_relevance"]
    """Always ``semantic_relevance``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    gate: Gate
    """PASS once every disagreement is settled, else INCOMPLETE (``gate.semantic.relevance_gate``)."""

    @classmethod
    def of(cls, report: Mapping[str, Any]) -> SemanticRelevanceResult:
        """``semantic.relevance.adjudicate``'s report with the gate's word, validated field by field."""
        return cls.model_validate({"kind": "semantic_relevance", "schema_version": SCHEMA_VERSION, **report})


class Agreement(Strict):
    """Share of pairs where the human and the clustering agree, with its percentile bootstrap interval."""

    pairs: int
    """Labelled pairs counted."""
    value: float | None
    """The share; null with no pair."""
    ci: list[float] | None
    """The interval [low, high]; null below two pairs or with no defined resample."""


class ValidationScore(Strict):
    """The blinded human validation sheet scored against its key (``semantic.human_validation``)."""

    sheet: str
    """The filled validation sheet."""
    sheet_sha256: str
    """sha256 of the sheet's bytes as scored."""
    key: str
    """The key written beside the sheet."""
    pairs: int
    """Pairs in the key."""
    labelled: int
    """Pairs with a same_meaning label."""
    unlabelled_rows: list[str]
    """Rows still blank."""
    complete: bool
    """True when no row is blank."""
    agreement: Agreement
    """Over every labelled pair."""
    within_cluster: Agreement
    """Over pairs the clustering put in one cluster."""
    between_clusters: Agreement
    """Over pairs the clustering put in different clusters."""
    cohens_kappa: float | None
    """Cohen's kappa between human and clustering; null without labels or when chance agreement is 1."""
    bootstrap: BootstrapRecord
    """How the intervals were drawn."""


class SemanticValidationResult(ValidationScore):
    """``semantic validate --json``: the score, the declared minimum, and the validation's word with its reason."""

    kind: Literal["semantic_validation"]
    """Always ``semantic_validation``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    minimum: float | None
    """The required agreement (--minimum); null: reported only."""
    gate: Gate
    """The validation's word (``gate.semantic.validation_verdict``)."""
    reasons: list[ReasonModel]
    """The one validation reason, with its numbers."""

    @classmethod
    def of(cls, score: Mapping[str, Any], minimum: float | None, verdict: Verdict) -> SemanticValidationResult:
        """``semantic.human_validation.score_validation``'s score, the minimum it was held to, and the word."""
        return cls.model_validate({**score, "kind": "semantic_validation", "schema_version": SCHEMA_VERSION,
                                   "minimum": minimum, "gate": verdict.gate,
                                   "reasons": reason_models(verdict)})

