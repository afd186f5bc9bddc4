"""Scoring a stored GLOSS run: checks on every stored answer, then the gate. Never generates.

``forgegate rescore`` is this function on an existing store: the verdict rests only
on what the store holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from forgegate.battery import Battery
from forgegate.battery.item import BatteryItem
from forgegate.checks import AnswerScore, score_item
from forgegate.checks.loop_controls import run_loop_detector_controls
from forgegate.checks.signatures import signatures_present
from forgegate.checks.stop_distribution import STOP_CATEGORY, StopAnswer, StopDistribution, stop_distribution
from forgegate.core.loop_settings import LOOP_RULE
from forgegate.core.match_rule import MATCH_RULE
from forgegate.core.records import StoredResponse
from forgegate.core.samples import sample_seeds
from forgegate.core.sampling import sampling_procedure
from forgegate.core.verdict import Gate, Reason
from forgegate.core.version import __version__
from forgegate.errors import StoreError, UsageError
from forgegate.gate.controls import control_reason
from forgegate.gate.gloss import GlossResult, ItemOutcome, category_result, gloss_verdict
from forgegate.gate.gloss_config import GateConfig
from forgegate.gate.live import live_verdict
from forgegate.gate.replicates import replicates_verdict
from forgegate.gate.signatures import signature_reason
from forgegate.pipeline.format_followup import format_followup
from forgegate.pipeline.gloss_inputs import GlossInputs
from forgegate.pipeline.review import item_review
from forgegate.pipeline.sample_summary import margin_model, samples_model
from forgegate.results import EvalResult, reason_models
from forgegate.results.base import REVIEW_SCHEMA_VERSION
from forgegate.results.eval import (
    BatteryRef,
    CategoryScore,
    EvalBody,
    EvalItem,
    GateConfigRef,
    LoopCutoff,
    Sampling,
    StopAnswerEntry,
    StopDistributionResult,
)
from forgegate.store import ReviewDecision, RunMeta, RunStore


@dataclass(frozen=True)
class ScoredAnswer:
    item: BatteryItem
    stored: StoredResponse | None  # None: never generated (an interrupted run)
    score: AnswerScore | None  # None: no answer to score
    reviews: tuple[ReviewDecision, ...] = ()  # every human decision on this answer, oldest first

    @property
    def review(self) -> str | None:
        """"pass" / "fail": the latest human decision, when one was needed and given."""
        return self.reviews[-1].verdict if self.reviews else None

    @property
    def final_score(self) -> float | None:
        if self.score is None:
            return None
        if self.score.needs_review:
            return None if self.review is None else float(self.review == "pass")
        return self.score.score


@dataclass(frozen=True)
class ScoredRun:
    """A stored run scored and gated: everything ``eval_result`` turns into the JSON contract."""

    meta: RunMeta
    battery: Battery
    gate_config: GateConfig
    gate_config_sha256: str
    answers: tuple[ScoredAnswer, ...]
    gloss: GlossResult
    store_path: Path
    signatures: dict[str, bool | None] | None = None
    """Each failure-mode signature present/absent/undecided, when the run was gated with --check-failure-modes."""
    replicates: tuple[Replicate, ...] = ()
    """K > 1 samples per item: each sample's replicate (``answers`` and ``gloss`` are sample 1's, the spec's
    procedure; ``gloss.verdict`` is the word over all of them). Empty with one sample."""


@dataclass(frozen=True)
class Replicate:
    """Replicate j of a run with K samples per item: every item's answer under sample j's seed, gated
    by the spec's gate as one battery."""

    seed: int | None
    answers: tuple[ScoredAnswer, ...]
    gloss: GlossResult
    signatures: dict[str, bool | None] | None = None


def run_seeds(meta: RunMeta) -> tuple[int, ...] | None:
    """The seeds of an eval's samples (``core.samples``), or None for a store that does not record its samples
    (a plan arm, a run written before runs recorded their samples: every stored answer is read, as before)."""
    if meta.samples is None or meta.seed is None or meta.kind not in ("eval", "live"):
        return None
    return sample_seeds(meta.seed, meta.samples)


def score_store(store_path: Path, battery: Battery, config: GateConfig, config_sha: str, *,
                arm: str | None = None, check_failure_modes: bool = False,
                seeds: tuple[int, ...] | None = None) -> ScoredRun:
    """Score the stored answers (only arm ``arm``'s when given: a plan's store holds several arms): each of the
    run's K samples as one replicate, and the word over them (``gate.replicates``; K = 1: the spec's gate as is).
    ``seeds``: the samples' seeds when the store does not record them (a plan arm)."""
    with RunStore.open(store_path, readonly=True) as store:
        meta = store.meta()
        rows = [r for r in store.latest() if arm is None or r.arm == arm]
        reviews = store.review_trails()
    if meta.battery_sha256 not in (None, battery.sha256):
        raise UsageError(f"run {meta.run_id} was generated from a battery with sha256 "
                         f"{meta.battery_sha256}, not {battery.sha256}")
    controls = [control_reason(run_loop_detector_controls())]
    seeds = seeds or run_seeds(meta)
    if seeds is None:
        replicates: tuple[Replicate, ...] = (_replicate(meta, battery, config, None, {r.item_id: r for r in rows},
                                                        reviews, controls, check_failure_modes),)
    else:
        by_seed: dict[int | None, dict[str, StoredResponse]] = {}
        for row in rows:
            by_seed.setdefault(row.seed, {})[row.item_id] = row
        replicates = tuple(_replicate(meta, battery, config, seed, by_seed.get(seed, {}), reviews, controls,
                                      check_failure_modes) for seed in seeds)
    first = replicates[0]
    gloss = first.gloss
    if len(replicates) > 1:
        gloss = replace(gloss, verdict=replicates_verdict([r.gloss.verdict for r in replicates]))
    return ScoredRun(meta, battery, config, config_sha, first.answers, gloss, store_path, first.signatures,
                     replicates if len(replicates) > 1 else ())


def _replicate(meta: RunMeta, battery: Battery, config: GateConfig, seed: int | None,
               latest: dict[str, StoredResponse], reviews: dict[str, tuple[ReviewDecision, ...]],
               controls: list[Reason], check_failure_modes: bool) -> Replicate:
    """One answer per item (``latest``) scored and gated as the spec's battery."""
    answers: list[ScoredAnswer] = []
    outcomes: list[ItemOutcome] = []
    for item in battery.items:
        stored = latest.get(item.item_id)
        score = (score_item(item, stored.completion(), loop_settings=config.loops)
                 if stored is not None and stored.ok else None)
        answer = ScoredAnswer(item, stored, score, reviews.get(stored.request_key, ()) if stored is not None else ())
        review = answer.review
        answers.append(answer)
        outcomes.append(ItemOutcome(
            item_id=item.item_id,
            category=item.category,
            score=answer.final_score,
            is_wall=item.is_wall,
            errored=score is None,
            pending_review=score is not None and score.needs_review and review is None,
            failure_modes=score.failure_modes if score else (),
        ))
    controls = list(controls)
    signatures = (signatures_present(outcomes, stop=run_stop_distribution(tuple(answers)))
                  if check_failure_modes else None)
    if signatures is not None:  # --check-failure-modes is a rule of the gate: the word, the JSON and the exit agree
        controls.append(signature_reason(signatures))
    if meta.kind == "live":
        gloss = live_result(config, outcomes, controls)
    else:
        gloss = gloss_verdict(config, outcomes, controls)
    return Replicate(seed, tuple(answers), gloss, signatures)


def score_gloss_arm(store_path: Path, inputs: GlossInputs, arm: str, *, per_arm: bool,
                    check_failure_modes: bool = False, samples: int | None = None) -> ScoredRun:
    """One arm's stored answers through the GLOSS checks and gate, the one scoring of the one road (an eval's
    one arm, each arm of a plan), and its verdict noted for ``forgegate runs``: under the arm's name where the
    store keeps things per arm (a plan, ``per_arm``), as the run's own where its one arm is the run (an eval).
    ``samples``: a plan's ``samples = K`` (K > 1), the replicates of ``inputs.seed``'s K sample seeds (an eval's
    store records its own)."""
    result = score_store(store_path, inputs.battery, inputs.config, inputs.config_sha256, arm=arm,
                         check_failure_modes=check_failure_modes,
                         seeds=sample_seeds(inputs.seed, samples) if samples is not None and samples > 1 else None)
    record_last_gate(store_path, result.gloss.verdict.gate, arm if per_arm else None)
    return result


def record_last_gate(store_path: Path, gate: Gate, arm: str | None = None) -> None:
    """Note the verdict for `forgegate runs` (the run's ``last_gate``, or arm ``arm``'s).

    Scoring never writes: the command that owns the run calls this after scoring (the eval session, a plan
    run, a rescore under the run's own gate config). A store that cannot be written (a read-only folder,
    where rescore and report still work) simply keeps its earlier note."""
    try:
        with RunStore.open(store_path, create=False) as store:
            store.update_meta(RunMeta(last_gate=gate.value) if arm is None
                              else RunMeta(arm_last_gates={arm: gate.value}))
    except StoreError:
        pass


def live_result(config: GateConfig, outcomes: list[ItemOutcome], controls: list[Reason]) -> GlossResult:
    """The live test as a result of the same shape: one category per battery category, no sigma."""
    verdict = live_verdict(config.live, outcomes, controls)
    categories = {c: category_result(config, c, [o for o in outcomes if o.category == c])
                  for c in dict.fromkeys(o.category for o in outcomes)}
    modes = tuple(sorted({m for o in outcomes for m in o.failure_modes}))
    failed = tuple(c for c, r in categories.items() if r.gate is Gate.FAIL)
    return GlossResult(verdict, None, categories, failed, modes)


def eval_body(result: ScoredRun) -> EvalBody:
    """Every field of the GLOSS contract but ``kind``: the one place a scored run becomes the results model
    (``eval_result`` adds the kind, a plan arm its own fields)."""
    meta, config, gloss = result.meta, result.gate_config, result.gloss
    return EvalBody(
        forgegate_version=__version__, run_id=meta.run_id, model=meta.model or meta.model_label,
        backend=meta.backend, model_digest=meta.model_digest, served_model=meta.served_model, seed=meta.seed,
        sampling=run_sampling(meta.temperature, meta.top_p, _one_arm(meta.served_sampling)),
        store=str(result.store_path),
        battery=BatteryRef(path=str(result.battery.path), sha256=result.battery.sha256,
                           items=len(result.battery.items)),
        created=meta.created,
        gate_config=GateConfigRef(name=config.name, sha256=result.gate_config_sha256, match_rule=MATCH_RULE,
                                  category_floor=config.category_floor, sigma_total_min=config.sigma_total_min,
                                  gloss_v2=config.gloss_v2, loop_rule=LOOP_RULE, loops=config.loops.record()),
        gate=gloss.verdict.gate, reasons=reason_models(gloss.verdict), sigma_total=gloss.sigma_total,
        categories={name: CategoryScore(score=cat.score, n=cat.n, passed=cat.passed, missing=cat.missing,
                                        weight=config.weights.get(name), gate=cat.gate)
                    for name, cat in gloss.categories.items()},
        failed_categories=list(gloss.failed_categories), failure_modes=list(gloss.failure_modes),
        token_sources=sorted({a.stored.token_source for a in result.answers
                              if a.stored is not None and a.stored.token_source}),
        items=[_item(a) for a in result.answers],
        failure_mode_signatures=result.signatures,
        format_followup=format_followup(gloss.failed_categories, result.battery.path, None),
        stop_distribution=_stop_result(run_stop_distribution(result.answers)),
        loop_cutoff=loop_cutoff(result), margin=margin_model(result), samples=samples_model(result))


def _one_arm(served: dict[str, dict[str, float | int | str | bool | None]] | None
             ) -> dict[str, float | int | str | bool | None] | None:
    """An eval's served sampling (its store's one arm); a plan arm's is its own (``plan_gloss``)."""
    return next(iter(served.values())) if served is not None and len(served) == 1 else None


def run_sampling(temperature: float | None, top_p: float | None,
                 served: dict[str, float | int | str | bool | None] | None) -> Sampling:
    """The sampling a run's answers were generated under: what was sent, whether that is the spec's procedure
    ("as served") or a departure from it, and what the backend serves with."""
    return Sampling(temperature=temperature, top_p=top_p, procedure=sampling_procedure(temperature, top_p),
                    served=served)


def run_stop_distribution(answers: tuple[ScoredAnswer, ...]) -> StopDistribution | None:
    """LX-STOP's termination distribution over the stored answers (None when the battery has no LX-STOP)."""
    return stop_distribution(
        StopAnswer(a.item.item_id, a.item.max_tokens,
                   a.stored.tokens if a.stored is not None and a.stored.ok else None,
                   a.stored.finish if a.stored is not None else None)
        for a in answers if a.item.category == STOP_CATEGORY)


def _stop_result(dist: StopDistribution | None) -> StopDistributionResult | None:
    if dist is None:
        return None
    return StopDistributionResult(
        category=dist.category, answered=len(dist.answered), missing=dist.missing, at_cap=dist.at_cap,
        finishes=dist.finishes, stop_failure=dist.stop_failure,
        answers=[StopAnswerEntry(id=a.item_id, max_tokens=a.max_tokens, tokens=a.tokens,
                                 finish=a.finish or "missing", at_cap=a.at_cap) for a in dist.answers])


def loop_cutoff(result: ScoredRun) -> LoopCutoff:
    """How many stored answers were cut off as loops, and the tokens that spared (cap minus generated)."""
    cut = [a.stored for a in result.answers if a.stored is not None and a.stored.finish == "loop"]
    return LoopCutoff(enabled=result.meta.loop_cutoff, cut=len(cut),
                      tokens_saved_estimate=sum(max(0, s.request.max_tokens - (s.tokens or 0)) for s in cut))


def eval_result(result: ScoredRun, *, regated_from: str | None = None) -> EvalResult:
    """The typed GLOSS result (``kind`` "eval" or "live", from the run store)."""
    kind = result.meta.kind
    if kind is None or kind == "plan":
        raise UsageError(f"run {result.meta.run_id} is a {kind!r} run, not a GLOSS eval or live test")
    return EvalResult(kind=kind, schema_version=REVIEW_SCHEMA_VERSION, regated_from=regated_from,
                      **dict(eval_body(result)))


def _item(answer: ScoredAnswer) -> EvalItem:
    stored, score = answer.stored, answer.score
    modes = list(score.failure_modes) if score else []
    detail = score.detail if score else (stored.error if stored else "never generated")
    if detail is None:  # an unscored answer is an error row, which always says why
        raise ValueError(f"stored answer {answer.item.item_id} has neither a score nor an error")
    return EvalItem(
        id=answer.item.item_id, category=answer.item.category, seed=stored.seed if stored else None,
        prompt=answer.item.prompt, response=stored.response if stored else None,
        tokens=stored.tokens if stored else None, token_source=stored.token_source if stored else None,
        finish=stored.finish if stored else "missing", error=stored.error if stored else "never generated",
        latency_s=stored.latency_s if stored else None, score=answer.final_score,
        passed=answer.final_score == 1.0, failure_mode=modes[0] if modes else None, failure_modes=modes,
        detail=detail, needs_review=bool(score and score.needs_review), review=item_review(answer.reviews),
        loop_span=(score.loop.start, score.loop.end) if score and score.loop else None,
        unfinished=bool(stored and stored.unconfirmed))
