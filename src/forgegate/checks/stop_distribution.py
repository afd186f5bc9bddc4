"""LX-STOP's termination distribution: tokens used and finish reasons across the category, and STOP_FAILURE.

GLOSS v2 defines STOP_FAILURE by a distribution, not by one answer: "Signature: Every response runs
to exactly max_tokens. No clean termination. Detection: LX-STOP test cases measuring termination
distribution." One answer past 40 tokens fails its item (LX-STOP's own fail criterion); the
*signature* is present only when every answered LX-STOP response ran to its cap.

An answer *ran to its cap* when the backend says it stopped for length (finish ``length``) or its
token count reached the item's ``max_tokens``. An answer cut short for another reason (a stop
token, or the loop cut-off's ``loop``) did not. Errored and never-generated requests are not in
the distribution (they have no length); ``missing`` counts them, and with any missing the
signature is not decided (``stop_failure`` None): a missing answer is never evidence either way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

STOP_CATEGORY = "LX-STOP"
"""The category whose distribution GLOSS v2 reads for STOP_FAILURE."""


@dataclass(frozen=True)
class StopAnswer:
    """One request of the category as the distribution needs it; ``tokens``/``finish`` None: no answer."""

    item_id: str
    max_tokens: int
    tokens: int | None
    finish: str | None

    @property
    def answered(self) -> bool:
        return self.tokens is not None and self.finish not in (None, "error", "missing")

    @property
    def at_cap(self) -> bool:
        """Ran to its cap: finish ``length``, or as many tokens as ``max_tokens``."""
        return self.answered and (self.finish == "length" or (self.tokens or 0) >= self.max_tokens)


@dataclass(frozen=True)
class StopDistribution:
    """Tokens and finish reasons of one category's answers, and whether they show GLOSS v2's STOP_FAILURE."""

    category: str
    answers: tuple[StopAnswer, ...]

    @property
    def answered(self) -> tuple[StopAnswer, ...]:
        return tuple(a for a in self.answers if a.answered)

    @property
    def missing(self) -> int:
        return len(self.answers) - len(self.answered)

    @property
    def at_cap(self) -> int:
        return sum(a.at_cap for a in self.answered)

    @property
    def finishes(self) -> dict[str, int]:
        """How many answers ended for each finish reason, most frequent first."""
        return dict(Counter(str(a.finish) for a in self.answered).most_common())

    @property
    def stop_failure(self) -> bool | None:
        """GLOSS v2's STOP_FAILURE signature: every response ran to its cap. None when the category has no
        answers or some are missing (undecided, never a pass)."""
        if not self.answered or self.missing:
            return None
        return self.at_cap == len(self.answered)


def stop_distribution(answers: Iterable[StopAnswer], category: str = STOP_CATEGORY) -> StopDistribution | None:
    """The distribution of ``answers`` (already restricted to ``category``); None when there are none (a
    battery without that category, the live test)."""
    collected = tuple(answers)
    return StopDistribution(category, collected) if collected else None
