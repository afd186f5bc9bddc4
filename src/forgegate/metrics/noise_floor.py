"""Seed-spread noise floors: each arm's per-seed values, mean and spread, and the two floor rules.

The floor for a comparison is **pairwise**: ``max(spread(candidate), spread(control))``,
so a candidate's verdict never depends on which *other* arms happened to be generated.
The all-arms floor (largest spread of any arm present) is kept beside it so older
records stay comparable, and any disagreement between the two rules is flagged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ArmSeeds:
    """One arm's value of one metric under each seed."""

    arm: str
    by_seed: Mapping[int, float] = field(default_factory=dict)

    @property
    def mean(self) -> float | None:
        """Mean over the measured seeds; None when no seed was measured (JSON null, never 0)."""
        if not self.by_seed:
            return None
        return sum(self.by_seed.values()) / len(self.by_seed)

    @property
    def spread(self) -> float | None:
        """max - min over seeds (0 for a single seed: no noise estimate, see ``seed_problem``);
        None when no seed was measured."""
        if not self.by_seed:
            return None
        return max(self.by_seed.values()) - min(self.by_seed.values())

    def measured(self) -> tuple[float, float]:
        """(mean, spread); a ValueError when no seed was measured (callers check ``seed_problem`` first)."""
        mean, spread = self.mean, self.spread
        if mean is None or spread is None:
            raise ValueError(f"arm '{self.arm}' has no measured seed")
        return mean, spread


@dataclass(frozen=True)
class FloorComparison:
    """Control vs candidate on one metric: ``gap = mean(control) - mean(candidate)``.

    For a lower-is-better metric a positive gap is an improvement. ``ratio`` is the gap
    over the pairwise floor (None when that floor is zero).
    """

    control: str
    candidate: str
    gap: float
    floor_pairwise: float
    floor_all_arms: float
    floor_all_arms_from: str

    @property
    def ratio(self) -> float | None:
        return self.gap / self.floor_pairwise if self.floor_pairwise > 0 else None

    def improves(self, floor: float) -> bool:
        """Superiority: the candidate is better by more than ``floor``."""
        return self.gap > floor

    def not_worse(self, floor: float) -> bool:
        """Non-inferiority: the candidate is worse by at most ``floor``."""
        return -self.gap <= floor


def compare_arms(arms: Mapping[str, ArmSeeds], control: str, candidate: str) -> FloorComparison:
    """Both floors and the gap for one control/candidate pair (every measured arm feeds the all-arms floor).

    Both arms of the pair must have measured seeds (``seed_problem`` says why not), else ValueError.
    """
    control_mean, control_spread = arms[control].measured()
    candidate_mean, candidate_spread = arms[candidate].measured()
    spreads = {name: arm.measured()[1] for name, arm in arms.items() if arm.by_seed}
    widest = max(spreads, key=lambda name: spreads[name])
    return FloorComparison(
        control=control,
        candidate=candidate,
        gap=control_mean - candidate_mean,
        floor_pairwise=max(candidate_spread, control_spread),
        floor_all_arms=spreads[widest],
        floor_all_arms_from=widest,
    )


def seed_problem(arms: Mapping[str, ArmSeeds], control: str, candidate: str) -> str | None:
    """Why a seed-spread floor cannot be measured for this pair, or None when it can."""
    for name in (control, candidate):
        if name not in arms or not arms[name].by_seed:
            return f"arm '{name}' has no measured seed"
        if len(arms[name].by_seed) < 2:
            return f"arm '{name}' has 1 seed: a seed-spread floor needs at least 2"
    if set(arms[control].by_seed) != set(arms[candidate].by_seed):
        missing = sorted(set(arms[control].by_seed) ^ set(arms[candidate].by_seed))
        return f"control and candidate were not run under the same seeds (differ on {missing})"
    return None
