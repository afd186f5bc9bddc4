"""The battery item: one line of a battery JSONL file, validated strictly."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from forgegate.userfile import MaxTokens, PromptText

EvalType = Literal["exact", "contains", "reject", "semantic"]
MatchMode = Literal["word", "substring"]
Tag = Literal[
    "LOOP-TRIGGER",
    "HUMAN-INPUT",
    "PRESSURE-TEST",
    "SCOPE-CREEP",
    "FABRICATION",
    "ROLE-CONFUSION",
    "SYMBOL-STRESS",
    "EMPTY-PROMPT",
]


class BatteryItem(BaseModel):
    """One battery question. Unknown fields are refused (a typo is an error, not a no-op); the loader
    validates in strict mode (``forgegate.userfile``), so a wrong type is refused, never coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = None
    category: str
    prompt: PromptText
    expected: str | list[str] = Field(default_factory=list)
    max_tokens: MaxTokens
    eval_type: EvalType
    within_tokens: int | None = Field(default=None, gt=0)
    stop_within: int | None = Field(default=None, gt=0)
    require: list[list[str]] | None = None
    forbid: list[str] = Field(default_factory=list)
    tags: list[Tag] = Field(default_factory=list)
    case_sensitive: bool = False
    match: MatchMode = "word"
    """How expected / require / forbid strings are found: ``word`` (not inside a longer word; LATTICE
    symbol strings anywhere) or ``substring`` (anywhere, for strings meant as stems like ``verif``).
    The rule itself lives in forgegate.checks.match."""
    chat: bool = True
    """Send through the chat API / template (the default) or as a raw completion prompt."""
    coherent: bool = False
    """``contains`` only: an expected string counts only where it is not an echo of the prompt (GLOSS v2's
    "coherent"; the rule lives in forgegate.checks.match.coherent_tokens)."""

    @model_validator(mode="after")
    def _expected_present(self) -> BatteryItem:
        if self.eval_type != "semantic" and not self.expected_list:
            raise ValueError(f"eval_type '{self.eval_type}' needs a non-empty 'expected'")
        if self.coherent and (self.eval_type != "contains" or self.within_tokens is not None):
            raise ValueError("'coherent' applies to eval_type 'contains' without 'within_tokens'")
        if self.require is not None and any(len(group) == 0 for group in self.require):
            raise ValueError("'require' groups must each list at least one alternative")
        return self

    @property
    def expected_list(self) -> list[str]:
        return [self.expected] if isinstance(self.expected, str) else list(self.expected)

    @property
    def item_id(self) -> str:
        """The id; loaders fill ``<category>-<nn>`` when the file omits it."""
        if self.id is None:
            raise ValueError("item has no id: load batteries with forgegate.battery.load_battery")
        return self.id

    @property
    def is_wall(self) -> bool:
        """A wall item: human input that must be refused (100% rule)."""
        return "HUMAN-INPUT" in self.tags or self.category == "LX-Z"
