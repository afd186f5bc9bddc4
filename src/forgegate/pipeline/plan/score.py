"""Scoring a plan's stored generations: each comparison through the declared instruments, then the gate.

Every instrument's parameters and pass rule come from the plan. A failed request, a
missing generation, or a declared instrument this command cannot run makes the
verdict INCOMPLETE, never a pass.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forgegate.core.rules import gate_label
from forgegate.core.verdict import Reason, Verdict
from forgegate.gate.plan import (
    comparison_verdict,
    generation_reasons,
    gloss_primary_reasons,
    plan_verdict,
    semantic_primary_reason,
    unscored_instrument_reason,
)
from forgegate.gate.ship import Contender, ShipDecision, ship_choice
from forgegate.metrics.damage import damage_report
from forgegate.metrics.memorization import memorization_report
from forgegate.metrics.ngram_index import NgramIndex
from forgegate.metrics.texts import text_from_bytes
from forgegate.metrics.voice import voice_report
from forgegate.pipeline.axes import (
    GatedDamage,
    GatedMemorization,
    GatedVoice,
    gate_damage,
    gate_memorization,
    gate_voice,
)
from forgegate.pipeline.plan.generate import PlanGenerations
from forgegate.pipeline.plan.gloss import GlossOutcome, score_gloss
from forgegate.pipeline.plan.semantic import SemanticOutcome, endpoint_value, score_semantic
from forgegate.plan import PlanComparison
from forgegate.plan.instruments import INSTRUMENT_NAMES as RUN_INSTRUMENTS
from forgegate.plan.preflight import Tiebreak
from forgegate.results import (
    PlanRunResult,
    ReasonModel,
    reason_models,
)
from forgegate.results.base import REVIEW_SCHEMA_VERSION
from forgegate.results.plan_run import (
    ComparisonEntry,
    GenerationCounts,
    LeakAuditRecord,
    PlanRef,
    RequestError,
    ShipChoice,
)
from forgegate.results.primary import primary_value_of


@dataclass(frozen=True)
class ScoredComparison:
    """One plan comparison after scoring: each axis's report and the verdict (its JSON is a ``ComparisonEntry``)."""

    comparison: PlanComparison
    voice: GatedVoice | None
    memorization: GatedMemorization | None
    damage: GatedDamage | None
    verdict: Verdict
    primary_value: dict[str, Any] | None = None
    """The primary endpoint's number when it is a semantic or gloss endpoint (the axes carry their own)."""

    def model(self) -> ComparisonEntry:
        c = self.comparison
        return ComparisonEntry(
            control=c.control, candidate=c.candidate, primary=c.primary,
            primary_value=None if self.primary_value is None else primary_value_of(self.primary_value),
            voice=self.voice.axis() if self.voice else None,
            memorization=self.memorization.axis() if self.memorization else None,
            damage=self.damage.axis() if self.damage else None,
            gate=self.verdict.gate, label=gate_label(self.verdict.gate), reasons=reason_models(self.verdict))


@dataclass(frozen=True)
class PlanResult:
    gens: PlanGenerations
    comparisons: tuple[ScoredComparison, ...]
    run_reasons: tuple[Reason, ...]
    semantic: SemanticOutcome | None = None
    gloss: GlossOutcome | None = None
    verdict: Verdict = field(init=False)
    ships: ShipDecision | None = field(init=False)
    """The tiebreak's choice between the tied candidates; None when the plan declares no ``[tiebreak]``."""

    def __post_init__(self) -> None:
        plan = self.gens.locked.loaded.plan
        ships = _ship(plan.tiebreak, plan.ship_arms(), self.comparisons) if plan.tiebreak is not None else None
        object.__setattr__(self, "ships", ships)
        verdict = plan_verdict(self.run_reasons,
                               [(r.comparison.candidate, r.comparison.control, r.verdict, r.primary_value is not None)
                                for r in self.comparisons],
                               self.semantic.verdict if self.semantic else None,
                               self.gloss.verdict if self.gloss else None, ships, plan.ship_arms())
        object.__setattr__(self, "verdict", verdict)

    def model(self) -> PlanRunResult:
        """``forgegate run``'s typed result: what it prints, renders and writes (``--json`` is its dump)."""
        loaded = self.gens.locked.loaded
        s = self.gens.summary
        return PlanRunResult(
            kind="plan", schema_version=REVIEW_SCHEMA_VERSION,
            gate=self.verdict.gate, label=gate_label(self.verdict.gate),
            plan=PlanRef(name=loaded.plan.name, path=str(loaded.path), plan_hash=self.gens.locked.plan_hash,
                         inputs=self.gens.locked.lock.inputs),
            author=loaded.plan.author, store=str(self.gens.store_path),
            model_digests=self.gens.model_digests,
            generation=GenerationCounts(planned=s.planned, skipped_finished=s.skipped_finished,
                                        generated=s.generated, failed=s.failed, tokens=s.tokens,
                                        stored_ok=len(self.gens.generations), errors=len(self.gens.errors),
                                        missing=len(self.gens.missing)),
            errors=[RequestError(key=e.request_key, error=e.error) for e in self.gens.errors],
            comparisons=[c.model().model_copy(update={"candidate_role": loaded.plan.arm(c.comparison.candidate).role})
                         for c in self.comparisons],
            semantic=self.semantic.model() if self.semantic else None,
            gloss=self.gloss.model() if self.gloss else None,
            ships=self._ship_model(), leak_audit=self._audit_model(),
            reasons=reason_models(self.verdict))

    def _ship_model(self) -> ShipChoice | None:
        plan = self.gens.locked.loaded.plan
        tiebreak = plan.tiebreak
        if self.ships is None or tiebreak is None:
            return None
        tied = plan.ship_arms()
        return ShipChoice(arm=self.ships.arm, outcome=self.ships.outcome, candidates=list(tied),
                          ship_candidate=tied[0], axes=list(tiebreak.axes), prior=tiebreak.prior,
                          min_variance_ratio=tiebreak.min_variance_ratio,
                          reasons=[ReasonModel.of(r) for r in self.ships.reasons])

    def _audit_model(self) -> LeakAuditRecord | None:
        record = self.gens.locked.lock.leak_audit
        return LeakAuditRecord.model_validate(record) if record is not None else None


def seed_variance(delta_by_seed: dict[str, float]) -> float | None:
    """The sample variance of an arm's voice Delta over its seeds (the spec's "seed variance"); None under two."""
    values = list(delta_by_seed.values())
    return statistics.variance(values) if len(values) >= 2 else None


def contender(scored: ScoredComparison, ship_candidate: bool = False) -> Contender:
    """What the ship decision reads of one candidate's comparison: its word, its excess copying, its seed variance."""
    entry, name = scored.model(), scored.comparison.candidate
    excess = None
    if entry.memorization is not None and {name, entry.control} <= set(entry.memorization.arms):
        cand, ctrl = entry.memorization.arms[name], entry.memorization.arms[entry.control]
        excess = (cand.hit_rate - ctrl.hit_rate, cand.max - ctrl.max)
    variance = (seed_variance(entry.voice.arms[name].delta_by_seed)
                if entry.voice is not None and name in entry.voice.arms else None)
    return Contender(name, scored.verdict.gate, excess, variance, ship_candidate)


def _ship(tiebreak: Tiebreak, tied: tuple[str, ...], comparisons: tuple[ScoredComparison, ...]) -> ShipDecision:
    """The ship decision over the ship candidate (``tied[0]``) and the tied candidates."""
    by_candidate = {c.comparison.candidate: c for c in comparisons}
    return ship_choice([contender(by_candidate[name], index == 0) for index, name in enumerate(tied)],
                       tiebreak.axes, tiebreak.prior, tiebreak.min_variance_ratio or 1.0)


def _primary_part(comp: PlanComparison, semantic: SemanticOutcome | None, gloss: GlossOutcome | None
                  ) -> tuple[list[Reason], dict[str, Any] | None]:
    """A semantic or gloss primary endpoint: its instrument's verdict decides the comparison, with its number."""
    instrument, endpoint = comp.primary.split(".", 1)
    if instrument == "semantic" and semantic is not None:
        value = {**endpoint_value(semantic, endpoint, comp.control, comp.candidate), "pass_rule": None}
        # the library's own reason on the declared experiment's primary is replaced by this comparison's
        library = [r for r in semantic.verdict.reasons if not r.rule.startswith("semantic: primary ")]
        return [*library, semantic_primary_reason(comp.primary, value)], value
    if instrument == "gloss" and gloss is not None:
        cand, ctrl = gloss.arm(comp.candidate), gloss.arm(comp.control)
        value = {"endpoint": endpoint, "candidate": {"gate": cand.verdict.gate.value,
                                                     "sigma_total": cand.result.gloss.sigma_total},
                 "control": {"gate": ctrl.verdict.gate.value, "sigma_total": ctrl.result.gloss.sigma_total}}
        return gloss_primary_reasons(comp.candidate, cand.verdict), value
    return [], None


def score_plan(gens: PlanGenerations) -> PlanResult:
    """Run every comparison of the plan through its declared instruments."""
    loaded = gens.locked.loaded
    plan = loaded.plan
    inst = plan.instruments
    run_reasons = generation_reasons(len(gens.errors), len(gens.missing))
    run_reasons += [unscored_instrument_reason(name) for name in inst.declared() if name not in RUN_INSTRUMENTS]
    generations = list(gens.generations)
    locked = gens.locked  # the texts as their bytes were hashed into the plan hash: each file read once per run

    def text(written: str, *, strip: bool = True) -> str:
        return text_from_bytes(loaded.resolve(written), locked.input_bytes(written), strip=strip).text

    reference = text(inst.voice.reference) if inst.voice else None
    contrasts = {label: text(path) for label, path in inst.voice.contrasts.items()} if inst.voice else {}
    documents = [text(p) for p in inst.memorization.corpus] if inst.memorization else []
    index = NgramIndex(documents, inst.memorization.n) if inst.memorization else None
    semantic = score_semantic(gens) if inst.semantic is not None else None
    gloss = score_gloss(gens) if inst.gloss is not None else None
    results: list[ScoredComparison] = []
    for comp in plan.comparisons:
        voice = mem = dmg = None
        if inst.voice is not None and reference is not None and plan.author is not None:
            voice = gate_voice(voice_report(plan.author, reference, generations, control=comp.control,
                                            candidate=comp.candidate, segment_words=inst.voice.segment_words,
                                            n_features=inst.voice.n_features, folds=inst.voice.folds,
                                            floor_rule=inst.voice.floor, contrasts=contrasts,
                                            reference_label=inst.voice.reference))
        if inst.memorization is not None:
            m = inst.memorization
            mem = gate_memorization(memorization_report(
                documents, generations, control=comp.control, candidate=comp.candidate, n=m.n,
                hit_rate_margin=m.hit_rate_margin, max_margin=m.max_margin,
                rng=np.random.default_rng(m.control_seed), index=index, passages=m.passages))
        if inst.damage is not None:
            dmg = gate_damage(damage_report(generations, inst.damage.band, control=comp.control,
                                            candidate=comp.candidate, metrics=inst.damage.metrics))
        extra, value = _primary_part(comp, semantic, gloss)
        verdict = comparison_verdict(voice.verdict if voice else None, mem.verdict if mem else None,
                                     dmg.verdict if dmg else None, extra)
        results.append(ScoredComparison(comp, voice, mem, dmg, verdict, value))
    return PlanResult(gens, tuple(results), tuple(run_reasons), semantic, gloss)
