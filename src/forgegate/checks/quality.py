"""The Q_task / Q_fact scorers a plan names per task: battery rules, an exact or numeric answer, human review.

Each registers in :data:`QUALITY_SCORERS` (here, where they are defined: no module loads this one by a
name) under its declaration's scorer name (``battery.quality_rules``). A ``battery-rule`` task is scored as a
battery item would be (``checks.score.score_item``:
eval type, require groups, forbid strings, loops), an ``exact`` answer by the battery's exact form
(``checks.score.exact_form``); no matching rule is written twice.
"""

from __future__ import annotations

import math
import re
from typing import Any

from forgegate.battery.quality_rules import (
    BatteryRuleDeclaration,
    ExactDeclaration,
    HumanReviewDeclaration,
    NumericDeclaration,
    QualityRule,
)
from forgegate.checks.score import exact_form, score_item
from forgegate.core.quality import QualityScorer
from forgegate.core.records import Completion
from forgegate.registry import Registry

QUALITY_SCORERS: Registry[QualityScorer] = Registry("quality scorer")
"""Every scorer a plan may name, registered below by its declaration's ``scorer`` name; the pipeline reads it
(the plan schema reads the declarations alone, ``battery.quality_rules.QUALITY_RULES``)."""


class BatteryRuleScorer:
    """A battery item's rule: 1.0 when ``score_item`` passes the answer."""

    declaration: type[QualityRule] = BatteryRuleDeclaration
    human = False

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        item = declaration.item(prompt, max(completion.tokens, 1))
        return 1.0 if score_item(item, completion).passed else 0.0


class ExactScorer:
    """The battery's exact form of the whole answer equals an accepted answer's."""

    declaration: type[QualityRule] = ExactDeclaration
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

    declaration: type[QualityRule] = NumericDeclaration
    human = False

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        value = first_number(completion.text)
        return 1.0 if value is not None and abs(value - declaration.answer) <= declaration.tolerance else 0.0


class HumanReviewScorer:
    """Scored by a person on the review sheet; the text alone never decides."""

    declaration: type[QualityRule] = HumanReviewDeclaration
    human = True

    def score(self, declaration: Any, prompt: str, completion: Completion) -> float:
        raise ValueError("a human-review task is scored from its filled review sheet, not from the text")


for _scorer in (BatteryRuleScorer(), ExactScorer(), NumericScorer(), HumanReviewScorer()):
    QUALITY_SCORERS.register(_scorer.declaration.scorer_name())(_scorer)
