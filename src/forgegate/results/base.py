"""What every result model shares: the version number, strictness, and a reason with its numbers.

``SCHEMA_VERSION`` is the version of the JSON contract every result carries as
``schema_version``. Version 1 is the first versioned contract: every field forgegate
0.1.0 wrote, unchanged in name and meaning, plus ``kind`` and ``schema_version``
(docs/architecture.md, "Results"). A change that renames, removes or re-means a
field raises it; results without ``schema_version`` are upgraded once by
``forgegate.results.legacy``.

The version is per kind: a kind whose fields changed says so in ``KIND_VERSIONS``
(``schema_version_of``); every other kind stays at ``SCHEMA_VERSION``. Version 2 of the
GLOSS kinds (eval, live, and plan, whose arms carry GLOSS items) turns an item's ``review``
from the word "pass"/"fail" into the decision with its provenance (README, Changelog).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from forgegate.core.verdict import Gate, Reason, Verdict

SCHEMA_VERSION: Literal[1] = 1
SchemaVersion = Literal[1]

REVIEW_SCHEMA_VERSION: Literal[2] = 2
ReviewSchemaVersion = Literal[2]
"""The version of the kinds whose items carry a review with its provenance (eval, live, plan)."""

KIND_VERSIONS: dict[str, int] = {"eval": REVIEW_SCHEMA_VERSION, "live": REVIEW_SCHEMA_VERSION,
                                 "plan": REVIEW_SCHEMA_VERSION}
"""Kinds whose contract moved past ``SCHEMA_VERSION``; the one list readers and writers consult."""


def schema_version_of(kind: object) -> int:
    """The version this forgegate writes (and reads) for ``kind``."""
    return KIND_VERSIONS.get(str(kind), SCHEMA_VERSION)

Number = float | int | str | bool | None


class Strict(BaseModel):
    """forgegate's own output: an unknown field is a bug or a hand edit, refused by name."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract (what ``--json`` writes)."""
        dumped: dict[str, Any] = self.model_dump(mode="json")
        return dumped


class Sparse(Strict):
    """A block whose optional keys are written only when given: the JSON keeps the keys it was built with."""

    @model_serializer(mode="wrap")
    def _given_keys_only(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            return {k: v for k, v in out.items() if k in self.model_fields_set}
        return out


class Estimate(Strict):
    """A number with its percentile bootstrap interval, as every table cell with a CI carries it."""

    value: float | None
    """The point estimate; null when nothing was measured."""
    ci: list[float] | None
    """[low, high]; null when the interval is not defined (too few units, or no value)."""


class ReasonModel(Strict):
    """One rule of a verdict: ``numbers`` holds what it compared (floor, score, n...), for reports to read."""

    rule: str
    outcome: Gate
    detail: str
    numbers: dict[str, Number] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _omit_empty_numbers(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        out = handler(self)
        if isinstance(out, dict) and not out.get("numbers"):
            out.pop("numbers", None)  # as Reason.to_json writes it: no numbers, no key
        return out

    @staticmethod
    def of(reason: Reason) -> ReasonModel:
        return ReasonModel(rule=reason.rule, outcome=reason.outcome, detail=reason.detail,
                           numbers=dict(reason.numbers))


def reason_models(verdict: Verdict) -> list[ReasonModel]:
    return [ReasonModel.of(r) for r in verdict.reasons]


class Gated(Strict):
    """A verdict: the word and the reasons that decided it."""

    gate: Gate
    reasons: list[ReasonModel]

    def reason(self, rule: str) -> ReasonModel | None:
        """The reason with this rule name, if the gate wrote one."""
        return next((r for r in self.reasons if r.rule == rule), None)
