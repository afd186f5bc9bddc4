"""The Q_task / Q_fact scorers a plan names per task: battery rules, an exact or numeric answer, human review.

Each registers in ``forgegate.core.quality.QUALITY_SCORERS`` with the strict model of its
declaration. A ``battery-rule`` task is scored as a battery item would be (``checks.score.score_item``:
eval type, require groups, forbid strings, loops), an ``exact`` answer by the battery's exact form
(``checks.score.exact_form``); no matching rule is written twice.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from forgegate.battery.item import BatteryItem, EvalType, MatchMode
from forgegate.checks.score import exact_form, score_item
from forgegate.core.quality import HUMAN_REVIEW, QUALITY_SCORERS
from forgegate.core.records import Completion
from forgegate.userfile import UserFileModel

QUALITY_CATEGORY = "Q_TASK"
"""The battery category a ``battery-rule`` task is scored under: none of GLOSS v2's, so no category rule
(clean termination) applies beyond the declared ones."""


class BatteryRuleDeclaration(UserFileModel):
    """``scorer = "battery-rule"``: the answer passes the battery rule a battery item with these fields applies."""

    scorer: Literal["battery-rule"]
    eval_type: EvalType
    """``exact``, ``contains``, ``reject`` or ``semantic`` (with ``require``), as in a battery item."""
    expected: str | tuple[str, ...] = ()
    """The expected answer(s) (``exact`` / ``contains``) or rejection markers (``reject``)."""
    require: tuple[tuple[str, ...], ...] | None = None
    """``semantic``: every group needs one alternative present."""
    forbid: tuple[str, ...] = ()
    """Strings the answer must not carry."""
    case_sensitive: bool = False
    """Compare case as written (default: case-folded)."""
    match: MatchMode = "word"
    """``word`` (not inside a longer word) or ``substring``: the battery's matching rule."""

    def item(self, prompt: str, max_tokens: int) -> BatteryItem:
        """The battery item this declaration stands for (its validator is the battery's)."""
        return BatteryItem(category=QUALITY_CATEGORY, prompt=prompt, max_tokens=max_tokens,
                           eval_type=self.eval_type,
                           expected=self.expected if isinstance(self.expected, str) else list(self.expected),
                           require=None if self.require is None else [list(g) for g in self.require],
                           forbid=list(self.forbid), case_sensitive=self.case_sensitive, match=self.match)

    @model_validator(mode="after")
    def _a_battery_item(self) -> BatteryRuleDeclaration:
        if self.eval_type == "semantic" and self.require is None:
            raise ValueError("eval_type 'semantic' without 'require' is human review: declare scorer = "
                             f"'{HUMAN_REVIEW}' instead, or list the required groups in 'require'")
        try:
            self.item("x", 1)
        except ValidationError as exc:
            raise ValueError("; ".join(str(e["msg"]) for e in exc.errors())) from None
        return self


class ExactDeclaration(UserFileModel):
    """``scorer = "exact"``: the whole answer, in the battery's exact form, is one of ``answer``."""

    scorer: Literal["exact"]
    answer: str | tuple[str, ...] = Field(min_length=1)
    """The accepted answer(s)."""
    case_sensitive: bool = False
    """Compare case as written (default: case-folded)."""

    @property
    def answers(self) -> list[str]:
        return [self.answer] if isinstance(self.answer, str) else list(self.answer)


class NumericDeclaration(UserFileModel):
    """``scorer = "numeric"``: the first number written in digits in the answer is ``answer`` within ``tolerance``."""

    scorer: Literal["numeric"]
    answer: float
    """The correct value."""
    tolerance: float = Field(default=0.0, ge=0)
    """Largest absolute difference that still counts as correct."""


class HumanReviewDeclaration(UserFileModel):
    """``scorer = "human-review"``: a person scores each answer (0 to 1) on a blinded review sheet."""

    scorer: Literal["human-review"]
    sheet: str = Field(min_length=1)
    """Where the filled review sheet is read from (relative to the plan; written by
    ``forgegate semantic quality-sheet``). It is filled after generation, so the lock does not hash it; the
    result records its sha256."""


class BatteryRuleScorer:
    """A battery item's rule: 1.0 when ``score_item`` passes the answer."""

    declaration: type[BaseModel] = BatteryRuleDeclaration
    human = False

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        item = declaration.item(prompt, max(completion.tokens, 1))
        return 1.0 if score_item(item, completion).passed else 0.0


class ExactScorer:
    """The battery's exact form of the whole answer equals an accepted answer's."""

    declaration: type[BaseModel] = ExactDeclaration
    human = False

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        cs = declaration.case_sensitive
        got = exact_form(completion.text, cs)
        return 1.0 if any(got == exact_form(a, cs) for a in declaration.answers) else 0.0


_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def first_number(text: str) -> float | None:
    """The first number written in digits (``1,234.5`` reads as 1234.5; ``-3``, ``2e3`` too); None if none."""
    match = _NUMBER.search(_THOUSANDS.sub("", text))
    if match is None:
        return None
    value = float(match.group())
    return value if math.isfinite(value) else None


class NumericScorer:
    """The first number in the answer is within the tolerance of the correct value."""

    declaration: type[BaseModel] = NumericDeclaration
    human = False

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        value = first_number(completion.text)
        return 1.0 if value is not None and abs(value - declaration.answer) <= declaration.tolerance else 0.0


class HumanReviewScorer:
    """Scored by a person on the review sheet; the text alone never decides."""

    declaration: type[BaseModel] = HumanReviewDeclaration
    human = True

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        raise ValueError("a human-review task is scored from its filled review sheet, not from the text")


QUALITY_SCORERS.register("battery-rule")(BatteryRuleScorer())
QUALITY_SCORERS.register("exact")(ExactScorer())
QUALITY_SCORERS.register("numeric")(NumericScorer())
QUALITY_SCORERS.register(HUMAN_REVIEW)(HumanReviewScorer())
