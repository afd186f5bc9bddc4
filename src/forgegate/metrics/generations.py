"""The generation row every instrument reads: ``{"arm", "seed", "text"}`` (+ optional provenance)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from forgegate.core.records import FinishReason
from forgegate.errors import InputError
from forgegate.jsonio import read_jsonl_models


class Generation(BaseModel):
    """One generation of one arm under one seed. Unknown fields are refused (a typo is an error).

    ``finish`` / ``tokens`` / ``max_tokens`` are optional: they are what the damage axis
    needs to tell a response that ran on into the token cap. ``item`` names the fixture
    item the generation answers, where known.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    arm: str = Field(min_length=1)
    seed: int
    text: str
    item: str | None = None
    finish: FinishReason | None = None
    tokens: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, gt=0)


def load_generations(path: Path) -> list[Generation]:
    """Every row of a ``gens.jsonl``; bad rows are InputErrors with file:line:field, an empty file too."""
    rows = read_jsonl_models(Path(path), Generation)
    if not rows:
        raise InputError(path, "no generations in the file",
                         hint='each line is {"arm": ..., "seed": ..., "text": ...}')
    return [row for _, row in rows]


def arms_in(generations: Iterable[Generation]) -> tuple[str, ...]:
    """Arm names in first-seen order."""
    return tuple(dict.fromkeys(g.arm for g in generations))


def by_arm_seed(generations: Iterable[Generation]) -> dict[str, dict[int, list[Generation]]]:
    """``{arm: {seed: [generation, ...]}}`` with arms in first-seen order and seeds sorted."""
    grouped: dict[str, dict[int, list[Generation]]] = {}
    for gen in generations:
        grouped.setdefault(gen.arm, {}).setdefault(gen.seed, []).append(gen)
    return {arm: dict(sorted(seeds.items())) for arm, seeds in grouped.items()}


def require_arms(generations: Sequence[Generation], names: Iterable[str], *, source: str) -> None:
    """A compared arm with no generation is bad input: say which arms the file does have."""
    present = arms_in(generations)
    for name in names:
        if name not in present:
            raise InputError(source, f"arm '{name}' has no generations",
                             hint=f"arms present: {', '.join(present) or 'none'}")
