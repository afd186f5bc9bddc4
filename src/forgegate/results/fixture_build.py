"""``forgegate fixture build --json``: what was sampled and the counts, as a registered result kind (no verdict).

Built from :class:`forgegate.fixture.builder.FixtureBuild` in one place (:meth:`FixtureBuildResult.of`); the JSON
is this model's dump, the fields the command wrote before it had a kind, plus ``kind`` and ``schema_version``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from forgegate.results.base import SCHEMA_VERSION, SchemaVersion, Strict

if TYPE_CHECKING:
    from forgegate.fixture.builder import FixtureBuild


class FixtureBuildResult(Strict):
    """The split sampled, the word band, the seed, the counts per work and the sampled item ids."""

    kind: Literal["fixture_build"]
    """Always ``fixture_build``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    split: str
    """The held-out split sampled (``--split``)."""
    band: tuple[int, int]
    """Inclusive response word band, low and high."""
    seed: int
    """The sampling seed (``--seed``): the same pairs, split, band and seed give the same fixture."""
    n: int
    """How many items were asked for (``--n``)."""
    split_total: int
    """Pairs in the split."""
    in_band: int
    """Pairs of the split inside the band."""
    available_by_work: dict[str, int]
    """In-band pairs of the split per source work."""
    sampled_by_work: dict[str, int]
    """Sampled items per source work (round-robin across works)."""
    items: list[str]
    """The sampled items' ids, in the fixture's order."""
    pairs: str
    """The pairs file read."""
    out: str
    """The fixture file written."""

    @classmethod
    def of(cls, build: FixtureBuild, *, pairs: str, out: str) -> FixtureBuildResult:
        return cls(kind="fixture_build", schema_version=SCHEMA_VERSION, split=build.split, band=build.band,
                   seed=build.seed, n=build.n, split_total=build.split_total, in_band=build.in_band,
                   available_by_work=dict(build.available_by_work), sampled_by_work=dict(build.sampled_by_work),
                   items=[item.id for item in build.items], pairs=pairs, out=out)
