"""Axis C, no damage: ran-on and out-of-band rates per arm and seed, against the control's seed spread.

* out-of-band: the response's word count (whitespace tokens) lies outside the
  inclusive band ``[low, high]``.
* ran-on: the response hit the token cap: ``finish == "length"``, or ``tokens >=
  max_tokens`` where the row carries both. A row that carries neither cannot say, and a
  metric that cannot be measured on every compared row is INCOMPLETE, never clean.

The rule (PASS per metric when ``rate(candidate) - rate(control)`` is at most that metric's own pairwise
seed-spread floor ``max(spread(candidate), spread(control))``) is ``gate/damage.py``'s: this module measures and
returns numbers only; the pipeline hands them to the gate (``pipeline/axes.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forgegate.core.declared import DAMAGE_METRICS, DamageMetric
from forgegate.errors import InputError
from forgegate.metrics.generations import Generation, by_arm_seed
from forgegate.metrics.noise_floor import ArmSeeds, FloorComparison, compare_arms, seed_problem


def parse_band(value: str) -> tuple[int, int]:
    """'90-150' -> (90, 150); anything else is an InputError saying the form."""
    low, sep, high = value.partition("-")
    if not sep or not low.strip().isdigit() or not high.strip().isdigit():
        raise InputError("--band", f"'{value}' is not LOW-HIGH", hint="e.g. --band 90-150 (words, inclusive)")
    band = (int(low), int(high))
    if not 0 < band[0] <= band[1]:
        raise InputError("--band", f"'{value}': need 0 < LOW <= HIGH")
    return band


def parse_metrics(value: str) -> list[DamageMetric]:
    """'out-of-band,ran-on' -> the metric names; an unknown one is an InputError."""
    chosen: list[DamageMetric] = []
    for name in (m.strip().replace("-", "_") for m in value.split(",") if m.strip()):
        matches = [m for m in DAMAGE_METRICS if m == name]
        if not matches:
            raise InputError("--metrics", f"'{name}' is not one of {', '.join(DAMAGE_METRICS)}")
        chosen.append(matches[0])
    if not chosen:
        raise InputError("--metrics", "choose at least one metric", hint=", ".join(DAMAGE_METRICS))
    return chosen


def in_band(text: str, band: tuple[int, int]) -> bool:
    low, high = band
    return low <= len(text.split()) <= high


def ran_on(gen: Generation) -> bool | None:
    """Whether the response hit the token cap; None when the row does not say."""
    if gen.finish is not None:
        return gen.finish == "length"
    if gen.tokens is not None and gen.max_tokens is not None:
        return gen.tokens >= gen.max_tokens
    return None


@dataclass(frozen=True)
class MetricResult:
    """One damage metric as measured: per-arm seed rates, the floor comparison, or why there is none."""

    metric: DamageMetric
    arms: Mapping[str, ArmSeeds]
    unmeasured: Mapping[str, int]
    comparison: FloorComparison | None
    problem: str | None
    """Why the two arms could not be compared (rows without the field, seeds without a floor); None when they were."""
    control: str
    candidate: str

    @property
    def label(self) -> str:
        """The metric as its reason names it (``ran-on``, ``out-of-band``)."""
        return self.metric.replace("_", "-")

    @property
    def rate_control(self) -> float | None:
        return self.arms[self.control].measured()[0] if self.comparison is not None else None

    @property
    def rate_candidate(self) -> float | None:
        return self.arms[self.candidate].measured()[0] if self.comparison is not None else None


@dataclass(frozen=True)
class DamageReport:
    """Everything axis C measured for one control/candidate pair (no verdict: ``gate.damage`` decides)."""

    band: tuple[int, int]
    control: str
    candidate: str
    metrics: Mapping[str, MetricResult]


def _rates(generations: Sequence[Generation], metric: DamageMetric, band: tuple[int, int]
           ) -> tuple[dict[str, ArmSeeds], dict[str, int]]:
    arms: dict[str, ArmSeeds] = {}
    unmeasured: dict[str, int] = {}
    for arm, seeds in by_arm_seed(generations).items():
        by_seed: dict[int, float] = {}
        missing = 0
        for seed, gens in seeds.items():
            flags = [not in_band(g.text, band) if metric == "out_of_band" else ran_on(g) for g in gens]
            known = [f for f in flags if f is not None]
            missing += len(flags) - len(known)
            if len(known) == len(flags):
                by_seed[seed] = sum(known) / len(known)
        arms[arm] = ArmSeeds(arm, by_seed)
        unmeasured[arm] = missing
    return arms, unmeasured


def damage_metric(generations: Sequence[Generation], metric: DamageMetric, band: tuple[int, int], *,
                  control: str, candidate: str) -> MetricResult:
    """One metric's rates and, when both arms can be compared, their floor comparison."""
    arms, unmeasured = _rates(generations, metric, band)
    label = metric.replace("_", "-")
    blind = [a for a in (control, candidate) if unmeasured.get(a, 0)]
    problem: str | None = None
    if blind:
        why = ("rows carry no 'finish' (or 'tokens' + 'max_tokens')" if metric == "ran_on"
               else "rows could not be measured")
        counts = ", ".join(f"{a}: {unmeasured[a]}" for a in blind)
        problem = f"cannot measure {label} ({counts} {why})"
    else:
        problem = seed_problem(arms, control, candidate)
    comp = compare_arms(arms, control, candidate) if problem is None else None
    return MetricResult(metric, arms, unmeasured, comp, problem, control, candidate)


def damage_report(generations: Sequence[Generation], band: tuple[int, int], *, control: str, candidate: str,
                  metrics: Sequence[DamageMetric] = DAMAGE_METRICS) -> DamageReport:
    """Axis C's measurements for one control/candidate pair over the chosen metrics (both by default)."""
    low, high = band
    if not 0 < low <= high:
        raise ValueError(f"band must satisfy 0 < low <= high, got {low}-{high}")
    if not metrics:
        raise ValueError("choose at least one damage metric")
    results: dict[str, MetricResult] = {m: damage_metric(generations, m, band, control=control, candidate=candidate)
               for m in dict.fromkeys(metrics)}
    return DamageReport(band, control, candidate, results)
