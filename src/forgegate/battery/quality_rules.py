"""The Q_task / Q_fact declarations a plan may write per task, one strict model per scorer (T_GPT v0.8.1's
``quality_guardrails``): a battery rule, an exact or numeric answer, human review.

Each model's ``scorer`` literal is the scorer's name, written once: the plan schema validates a task's table
with the model its ``scorer`` names (:data:`QUALITY_RULES`), and ``checks.quality`` registers the scorer of
each model under that name. They live with the battery because a ``battery-rule`` task is a battery item's rule
(:meth:`BatteryRuleDeclaration.item`); plan and instruments both import them, and neither loads the other.
"""

from __future__ import annotations

import typing
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from forgegate.battery.item import BatteryItem, EvalType, MatchMode
from forgegate.userfile import UserFileModel

QUALITY_CATEGORY = "Q_TASK"
"""The battery category a ``battery-rule`` task is scored under: none of GLOSS v2's, so no category rule
(clean termination) applies beyond the declared ones."""


class QualityRule(UserFileModel):
    """One task's declaration under one scorer (its ``scorer`` field names it)."""

    @classmethod
    def scorer_name(cls) -> str:
        """The name a plan writes in ``scorer`` for this model (its literal)."""
        return str(typing.get_args(cls.model_fields["scorer"].annotation)[0])


class BatteryRuleDeclaration(QualityRule):
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
                             f"'{HumanReviewDeclaration.scorer_name()}' instead, or list the required groups in "
                             "'require'")
        try:
            self.item("x", 1)
        except ValidationError as exc:
            raise ValueError("; ".join(str(e["msg"]) for e in exc.errors())) from None
        return self


class ExactDeclaration(QualityRule):
    """``scorer = "exact"``: the whole answer, in the battery's exact form, is one of ``answer``."""

    scorer: Literal["exact"]
    answer: str | tuple[str, ...] = Field(min_length=1)
    """The accepted answer(s)."""
    case_sensitive: bool = False
    """Compare case as written (default: case-folded)."""

    @property
    def answers(self) -> list[str]:
        return [self.answer] if isinstance(self.answer, str) else list(self.answer)


class NumericDeclaration(QualityRule):
    """``scorer = "numeric"``: the first number written in digits in the answer is ``answer`` within ``tolerance``."""

    scorer: Literal["numeric"]
    answer: float
    """The correct value."""
    tolerance: float = Field(default=0.0, ge=0)
    """Largest absolute difference that still counts as correct."""


class HumanReviewDeclaration(QualityRule):
    """``scorer = "human-review"``: a person scores each answer (0 to 1) on a blinded review sheet."""

    scorer: Literal["human-review"]
    sheet: str = Field(min_length=1)
    """Where the filled review sheet is read from (relative to the plan; written by
    ``forgegate semantic quality-sheet``). It is filled after generation, so the lock does not hash it; the
    result records its sha256."""



QUALITY_RULES: dict[str, type[QualityRule]] = {
    rule.scorer_name(): rule
    for rule in (BatteryRuleDeclaration, ExactDeclaration, NumericDeclaration, HumanReviewDeclaration)}
"""Scorer name -> the strict model of a task's declaration under it: the one list of scorers."""
