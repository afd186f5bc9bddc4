"""T_GPT v0.8.1's cost guardrails per condition in a plan run's semantic result (``semantic.cost``).

Built by ``pipeline.plan.cost.condition_cost``. A count or price that is unknown is null with a
``note`` or ``status`` saying why, never 0; a key the pipeline did not write for that case (a
complete count has no ``sum_of_reported``) is left out of the JSON, as before the block was typed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from forgegate.results.base import Sparse, Strict


class TokenCount(Sparse):
    """A token total over a condition's answered requests: the sum when every request reported it, else null."""

    value: int | None
    """The total; null unless every request reported its count."""
    status: Literal["complete", "partial", "not reported"]
    """Whether every request (complete), some (partial) or none reported the count."""
    reported_requests: int | None = None
    """Requests that reported the count."""
    requests: int | None = None
    """Requests counted (given when some did not report)."""
    sum_of_reported: int | None = None
    """The sum over the requests that did report (given when some did not), labelled, never the total."""
    source: str | None = None
    """Where the counts came from (the backend's own counts, or the tokenizer's)."""
    note: str | None = None
    """Why a total of two counts is null."""


class WallClock(Sparse):
    """The condition's wall-clock span, and the plain sum of its request latencies beside it."""

    value_s: float | None
    """Seconds from the first answered request's start to the last one's finish; null when unknown."""
    definition: str | None = None
    """What the span measures (given with a value)."""
    note: str | None = None
    """Why the span is unknown (given without a value)."""
    sum_of_request_latencies_s: float
    """Sum of every answered request's latency."""


class MonetaryCost(Sparse):
    """The estimated price of the condition's tokens, from the plan's price table; null with the reason."""

    value: float | None
    """The estimate in ``currency``; null without a price or without complete token counts."""
    currency: str | None
    """The price table's currency; null without a price table."""
    input_per_million: float | None = None
    """The price of a million input tokens for this arm."""
    output_per_million: float | None = None
    """The price of a million output tokens for this arm."""
    note: str | None = None
    """Why there is no estimate."""


class ArmCost(Strict):
    """One condition's seven cost guardrails (T_GPT v0.8.1 ``quality_guardrails.cost``) and its request count."""

    requests: int
    """Answered requests of the condition."""
    input_tokens: TokenCount
    """Prompt tokens."""
    output_tokens: TokenCount
    """Generated tokens."""
    total_tokens: TokenCount
    """Input plus output; null unless both are known."""
    wall_clock_latency: WallClock
    """The condition's wall-clock span."""
    serial_depth: int
    """Requests that must run one after another (1: none reads another's output)."""
    parallelizable_calls: int
    """Requests that can run at once (the plan's tasks times seeds)."""
    estimated_monetary_cost: MonetaryCost
    """The estimated price."""


class PlanCost(Strict):
    """Arm name -> its ``ArmCost``, and ``note``: how the plan's structure sets serial depth and parallelism.

    The arms are keys beside ``note`` (the JSON as it was written before the block was typed); each is validated
    as an ``ArmCost``, so a key that is not an arm's cost block is still refused."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)
    __pydantic_extra__: dict[str, ArmCost]

    note: str
    """Why serial depth is 1 and every call can run in parallel (the plan's structure)."""

    @model_serializer(mode="wrap")
    def _note_last(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        out = handler(self)
        if isinstance(out, dict) and "note" in out:
            out["note"] = out.pop("note")  # after the arms, where the pipeline writes it
        return out

    def arms(self) -> dict[str, ArmCost]:
        """Each condition's cost block, in the plan's arm order."""
        return dict(self.__pydantic_extra__ or {})
