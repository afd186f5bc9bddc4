"""A scored GLOSS run's margin and its K samples as result models: ``gate.margin``'s distances to the
next word, ``metrics.pass_rates``' intervals and each replicate's word, turned into ``results.samples``' blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgegate.core.rules import REPLICATES_RULE
from forgegate.gate.margin import gloss_margin
from forgegate.metrics.pass_rates import INTERVAL_METHOD, category_rate, item_passes, sigma_rate
from forgegate.results.samples import (
    CategoryMarginResult,
    Interval,
    MarginResult,
    ReplicateResult,
    SampleItem,
    SamplesResult,
    SigmaMarginResult,
)

if TYPE_CHECKING:
    from forgegate.pipeline.gloss_scoring import ScoredRun


def margin_model(result: ScoredRun) -> MarginResult | None:
    """How far the GLOSS categories and sigma_total are from flipping (sample 1's answers); None for a live test."""
    if result.meta.kind == "live":
        return None
    gloss = result.gloss
    margin = gloss_margin(result.gate_config, gloss.categories, gloss.sigma_total)
    sigma = margin.sigma_total
    return MarginResult(
        categories={name: CategoryMarginResult(score=m.score, n=m.n, floor=m.floor, passes=m.passes, items=m.items,
                                               flipped_score=m.flipped_score, text=m.text)
                    for name, m in margin.categories.items()},
        sigma_total=None if sigma is None else SigmaMarginResult(
            sigma_total=sigma.sigma_total, minimum=sigma.minimum, passes=sigma.passes, delta=sigma.delta,
            items=sigma.items, flipped_sigma=sigma.flipped_sigma, text=sigma.text),
        closest=margin.closest)


def samples_model(result: ScoredRun) -> SamplesResult | None:
    """The K samples' replicates, per-item passes and intervals; None with one sample."""
    replicates = result.replicates
    if len(replicates) < 2:
        return None
    scores: dict[str, list[float | None]] = {}
    categories: dict[str, list[str]] = {}
    for replicate in replicates:
        for answer in replicate.answers:
            scores.setdefault(answer.item.item_id, []).append(answer.final_score)
    for answer in replicates[0].answers:
        categories.setdefault(answer.item.category, []).append(answer.item.item_id)
    rates = {name: rate for name, ids in categories.items()
             if (rate := category_rate([scores[i] for i in ids])) is not None}
    complete = len(rates) == len(categories)
    sigma = sigma_rate(rates, result.gate_config.weights) if complete and result.meta.kind != "live" else None
    agreement = next(reason for reason in result.gloss.verdict.reasons if reason.rule == REPLICATES_RULE)
    flips = str(agreement.numbers["flips"])
    return SamplesResult(
        k=len(replicates), seeds=[r.seed for r in replicates], interval=INTERVAL_METHOD,
        replicates=[ReplicateResult(sample=j + 1, seed=r.seed, gate=r.gloss.verdict.gate,
                                    sigma_total=r.gloss.sigma_total, failed_categories=list(r.gloss.failed_categories))
                    for j, r in enumerate(replicates)],
        passed_replicates=int(agreement.numbers["passed"] or 0),
        flips=[name for name in flips.split(", ") if name],
        items={item_id: SampleItem(passes=p.passes, answered=p.answered, samples=p.samples)
               for item_id, item_scores in scores.items() for p in (item_passes(item_scores),)},
        categories={name: Interval(mean=rate.mean, low=rate.low, high=rate.high) for name, rate in rates.items()},
        sigma_total=None if sigma is None else Interval(mean=sigma.mean, low=sigma.low, high=sigma.high))
