"""Scoring a plan's stored generations: each comparison through the declared instruments, then the gate.

Every instrument's parameters and pass rule come from the plan. A failed request, a
missing generation, or a declared instrument this command cannot run makes the
verdict INCOMPLETE, never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.gate.arms import arms_verdict, gate_label
from forgegate.metrics.damage import DamageReport, damage_report
from forgegate.metrics.memorization import MemorizationReport, memorization_report
from forgegate.metrics.ngram_index import NgramIndex
from forgegate.metrics.texts import read_text
from forgegate.metrics.voice import VoiceReport, voice_report
from forgegate.pipeline.plan_generate import PlanGenerations
from forgegate.pipeline.plan_gloss import GlossOutcome, score_gloss
from forgegate.pipeline.plan_semantic import SemanticOutcome, endpoint_value, score_semantic
from forgegate.plan import PlanComparison
from forgegate.plan.instruments import INSTRUMENT_NAMES as RUN_INSTRUMENTS
from forgegate.results import DamageAxis, MemorizationAxis, PlanRunResult, VoiceAxis, reason_models
from forgegate.results.base import REVIEW_SCHEMA_VERSION
from forgegate.results.plan_run import ComparisonEntry, GenerationCounts, PlanRef, RequestError
from forgegate.semantic.roles import primary_na


@dataclass(frozen=True)
class ScoredComparison:
    """One plan comparison after scoring: each axis's report and the verdict (its JSON is a ``ComparisonEntry``)."""

    comparison: PlanComparison
    voice: VoiceReport | None
    memorization: MemorizationReport | None
    damage: DamageReport | None
    verdict: Verdict
    primary_value: dict[str, Any] | None = None
    """The primary endpoint's number when it is a semantic or gloss endpoint (the axes carry their own)."""

    def to_json(self) -> dict[str, Any]:
        return self.model().model_dump(mode="json")

    def model(self) -> ComparisonEntry:
        c = self.comparison
        return ComparisonEntry(
            control=c.control, candidate=c.candidate, primary=c.primary, primary_value=self.primary_value,
            voice=VoiceAxis.model_validate(self.voice.to_json()) if self.voice else None,
            memorization=MemorizationAxis.model_validate(self.memorization.to_json()) if self.memorization else None,
            damage=DamageAxis.model_validate(self.damage.to_json()) if self.damage else None,
            gate=self.verdict.gate, label=gate_label(self.verdict.gate), reasons=reason_models(self.verdict))


@dataclass(frozen=True)
class PlanResult:
    gens: PlanGenerations
    comparisons: tuple[ScoredComparison, ...]
    run_reasons: tuple[Reason, ...]
    semantic: SemanticOutcome | None = None
    gloss: GlossOutcome | None = None
    verdict: Verdict = field(init=False)

    def __post_init__(self) -> None:
        reasons = list(self.run_reasons)
        for result in self.comparisons:
            c = result.comparison
            detail = gate_label(result.verdict.gate)
            if result.primary_value is not None:  # a semantic or gloss primary: say what decided it
                detail += "".join(f"; {r.detail}" for r in result.verdict.reasons
                                  if r.outcome is result.verdict.gate and r.outcome is not Gate.PASS)
            reasons.append(Reason(f"{c.candidate} vs {c.control}", result.verdict.gate, detail))
        if self.semantic is not None:
            reasons.append(Reason("semantic", self.semantic.verdict.gate, "T_GPT metrics (semantic library's word)"))
        if self.gloss is not None:
            reasons.extend(self.gloss.verdict.reasons)
        object.__setattr__(self, "verdict", Verdict.combine(reasons))

    def to_json(self) -> dict[str, Any]:
        """``forgegate run --json``: the ``PlanRunResult`` contract."""
        return self.model().model_dump(mode="json")

    def model(self) -> PlanRunResult:
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
            comparisons=[c.model() for c in self.comparisons],
            semantic=self.semantic.model() if self.semantic else None,
            gloss=self.gloss.model() if self.gloss else None,
            reasons=reason_models(self.verdict))


def _combine(voice: Verdict | None, mem: Verdict | None, dmg: Verdict | None,
             extra: list[Reason] | None = None) -> Verdict:
    extra = extra or []
    if voice is not None and mem is not None and dmg is not None:
        axes = arms_verdict(voice, mem, dmg)  # keeps HOLD (operator's call) as its own word
        if not extra:
            return axes
        word = Verdict.combine([Reason("three-axis verdict", axes.gate, ""), *extra]).gate
        return Verdict(word, (*axes.reasons, *extra))
    return Verdict.combine([r for v in (voice, mem, dmg) if v is not None for r in v.reasons] + extra)


def _primary_part(comp: PlanComparison, semantic: SemanticOutcome | None, gloss: GlossOutcome | None
                  ) -> tuple[list[Reason], dict[str, Any] | None]:
    """A semantic or gloss primary endpoint: its instrument's verdict decides the comparison, with its number."""
    instrument, endpoint = comp.primary.split(".", 1)
    if instrument == "semantic" and semantic is not None:
        value = {**endpoint_value(semantic, endpoint, comp.control, comp.candidate), "pass_rule": None}
        # the library's own reason on the declared experiment's primary is replaced by this comparison's
        library = [r for r in semantic.verdict.reasons if not r.rule.startswith("semantic: primary ")]
        return [*library, _estimated(comp.primary, value)], value
    if instrument == "gloss" and gloss is not None:
        cand, ctrl = gloss.arm(comp.candidate), gloss.arm(comp.control)
        value = {"endpoint": endpoint, "candidate": {"gate": cand.verdict.gate.value,
                                                     "sigma_total": cand.result.gloss.sigma_total},
                 "control": {"gate": ctrl.verdict.gate.value, "sigma_total": ctrl.result.gloss.sigma_total}}
        return [Reason(f"gloss {comp.candidate}: {r.rule}", r.outcome, r.detail, r.numbers)
                for r in cand.verdict.reasons], value
    return [], None


NO_RULE = "no pre-registered pass rule: estimate only"


def _estimated(primary: str, value: dict[str, Any]) -> Reason:
    """A semantic primary endpoint: NA decides nothing (INCOMPLETE, ``primary_na``); a number with no pass rule
    is an estimate, not a pass: HOLD, the operator's call (a plan cannot pre-register a semantic threshold)."""
    undecided = primary_na(primary, value)
    if undecided is not None:
        return undecided
    return Reason(f"primary {primary}", Gate.HOLD, f"{primary}: {NO_RULE}")


def score_plan(gens: PlanGenerations) -> PlanResult:
    """Run every comparison of the plan through its declared instruments."""
    loaded = gens.locked.loaded
    plan = loaded.plan
    inst = plan.instruments
    run_reasons: list[Reason] = []
    if gens.errors or gens.missing:
        run_reasons.append(Reason("generation", Gate.INCOMPLETE,
                                  f"{len(gens.errors)} requests failed for good and {len(gens.missing)} are "
                                  "missing: a missing answer is not a pass (run again to resume)"))
    for name in inst.declared():
        if name not in RUN_INSTRUMENTS:
            run_reasons.append(Reason(name, Gate.INCOMPLETE,
                                      f"the {name} instrument is declared but forgegate run does not score it"))
    generations = list(gens.generations)
    reference = read_text(loaded.resolve(inst.voice.reference)).text if inst.voice else None
    contrasts = ({label: read_text(loaded.resolve(path)).text for label, path in inst.voice.contrasts.items()}
                 if inst.voice else {})
    documents = ([read_text(loaded.resolve(p)).text for p in inst.memorization.corpus]
                 if inst.memorization else [])
    index = NgramIndex(documents, inst.memorization.n) if inst.memorization else None
    semantic = score_semantic(gens) if inst.semantic is not None else None
    gloss = score_gloss(gens) if inst.gloss is not None else None
    results: list[ScoredComparison] = []
    for comp in plan.comparisons:
        voice = mem = dmg = None
        if inst.voice is not None and reference is not None and plan.author is not None:
            voice = voice_report(plan.author, reference, generations, control=comp.control,
                                 candidate=comp.candidate, segment_words=inst.voice.segment_words,
                                 n_features=inst.voice.n_features, folds=inst.voice.folds,
                                 floor_rule=inst.voice.floor, contrasts=contrasts,
                                 reference_label=inst.voice.reference)
        if inst.memorization is not None:
            m = inst.memorization
            mem = memorization_report(documents, generations, control=comp.control, candidate=comp.candidate,
                                      n=m.n, hit_rate_margin=m.hit_rate_margin, max_margin=m.max_margin,
                                      rng=np.random.default_rng(m.control_seed), index=index,
                                      passages=m.passages)
        if inst.damage is not None:
            dmg = damage_report(generations, inst.damage.band, control=comp.control, candidate=comp.candidate,
                                metrics=inst.damage.metrics)
        extra, value = _primary_part(comp, semantic, gloss)
        verdict = _combine(voice.verdict if voice else None, mem.verdict if mem else None,
                           dmg.verdict if dmg else None, extra)
        results.append(ScoredComparison(comp, voice, mem, dmg, verdict, value))
    return PlanResult(gens, tuple(results), tuple(run_reasons), semantic, gloss)
