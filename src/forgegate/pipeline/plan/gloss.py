"""The gloss instrument of a plan: each arm's stored battery answers through the GLOSS gate, one verdict per arm.

Scoring is the eval's own (``forgegate.pipeline.gloss_scoring.score_store`` filtered to one arm, and
``eval_body``): the same checks, controls and gate rules. The plan's rule: every arm with
role ``candidate`` must pass the GLOSS gate; a ``control`` arm's verdict is reported beside
them and decides nothing (a baseline is not shipped).
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.verdict import Gate, Verdict
from forgegate.gate.plan import plan_gloss_verdict
from forgegate.pipeline.gloss_scoring import ScoredRun, eval_body, run_sampling, score_gloss_arm
from forgegate.pipeline.plan.checks import gloss_inputs
from forgegate.pipeline.plan.generate import PlanGenerations
from forgegate.results import PlanArmGloss, PlanGloss, reason_models


@dataclass(frozen=True)
class ArmGloss:
    arm: str
    role: str
    result: ScoredRun
    contract: PlanArmGloss
    """The arm's GLOSS result as the plan JSON carries it."""

    @property
    def decides(self) -> bool:
        return self.role == "candidate"

    @property
    def verdict(self) -> Verdict:
        return self.result.gloss.verdict


@dataclass(frozen=True)
class GlossOutcome:
    arms: tuple[ArmGloss, ...]
    verdict: Verdict

    def arm(self, name: str) -> ArmGloss:
        return next(a for a in self.arms if a.arm == name)

    def model(self) -> PlanGloss:
        first = self.arms[0].contract if self.arms else None
        return PlanGloss(gate=self.verdict.gate, reasons=reason_models(self.verdict),
                         rule="every candidate arm must pass the GLOSS gate; control arms are reported, not decisive",
                         battery=first.battery if first else None, gate_config=first.gate_config if first else None,
                         arms={a.arm: a.contract for a in self.arms})


def score_gloss(gens: PlanGenerations) -> GlossOutcome:
    """One GLOSS result per arm from the plan's run store; the plan-level verdict over the candidate arms."""
    loaded = gens.locked.loaded
    inputs = gloss_inputs(loaded, gens.locked.contents)  # the bytes the plan hash covers, not a second read
    sampling = loaded.plan.sampling
    arms: list[ArmGloss] = []
    deciding: list[tuple[str, Gate, str]] = []
    for arm in loaded.plan.arms:
        result = score_gloss_arm(gens.store_path, inputs, arm.name, per_arm=True, samples=loaded.plan.samples)
        body = eval_body(result).model_copy(update={  # the arm's identity is the plan's, not the store's
            "backend": arm.backend, "model": arm.model or f"{arm.backend} default model",
            "model_digest": gens.model_digests.get(arm.name), "seed": inputs.seed,
            "sampling": run_sampling(sampling.temperature, sampling.sent_top_p,
                                     (result.meta.served_sampling or {}).get(arm.name))})
        payload = PlanArmGloss(kind="plan", arm=arm.name, role=arm.role, decides=arm.role == "candidate",
                               adapter=arm.adapter, plan_hash=gens.locked.plan_hash, **dict(body))
        entry = ArmGloss(arm.name, arm.role, result, payload)
        arms.append(entry)
        failed = ", ".join(result.gloss.failed_categories) or "none"
        sigma = result.gloss.sigma_total
        detail = (f"GLOSS {entry.verdict.gate.value}: sigma_total "
                  f"{'n/a' if sigma is None else f'{sigma:.3f}'}, failed categories {failed}")
        if entry.decides:
            deciding.append((arm.name, entry.verdict.gate, detail))
    return GlossOutcome(tuple(arms), plan_gloss_verdict(deciding))
