"""Rules every file a user writes (battery, plan, gate config) is held to, in one place.

Loaders validate with ``model_validate(..., strict=True)``: ``"32"`` is not 32, ``true`` is
not 1, ``"yes"`` is not a boolean. A silently coerced value is a different battery or gate
from the one the user reviewed, so a wrong type is refused at its line. What a battery item
and a plan's sampling both bound (the token cap, whose number lives in ``forgegate.core.limits``)
and check (prompt text) is defined here once.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from forgegate.core.limits import MAX_COUNT, MAX_TOKENS_LIMIT, RNG_SEED_MAX, SEED_MAX, SEED_MIN
from forgegate.core.strict_model import StrictModel
from forgegate.textsafe import prompt_problem


class UserFileModel(StrictModel):
    """Base of every model a user file is validated against: unknown keys are refused (a typo is an error,
    not a no-op), NaN and infinity are refused (a NaN floor passes every comparison), values are frozen
    (the config itself is ``forgegate.core.strict_model.StrictModel``'s)."""


MaxTokens = Annotated[int, Field(gt=0, le=MAX_TOKENS_LIMIT)]
"""A per-request token cap: positive, and at most ``forgegate.core.limits.MAX_TOKENS_LIMIT``."""


Seed = Annotated[int, Field(ge=SEED_MIN, le=SEED_MAX)]
"""A generation seed: a 64-bit signed integer (``forgegate.core.limits``), as the store and servers hold it."""
RngSeed = Annotated[int, Field(ge=0, le=RNG_SEED_MAX)]
"""A numpy Generator's seed: not negative (numpy refuses), at most ``RNG_SEED_MAX``."""
Count = Annotated[int, Field(gt=0, le=MAX_COUNT)]
"""A positive count a user file sets, at most ``MAX_COUNT`` (a typo of extra zeros is refused, not run)."""


def _checked_prompt(text: str) -> str:
    problem = prompt_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


PromptText = Annotated[str, AfterValidator(_checked_prompt)]
"""Text forgegate sends to a model: no control characters (newline, tab and CR aside), no lone surrogates."""
