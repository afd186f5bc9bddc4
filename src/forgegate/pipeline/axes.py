"""The arm axes carried from instrument to gate: a measurement and the verdict ``gate/`` gives it, kept together.

The instruments (``metrics/``) measure and return numbers only; this is where the pipeline hands those numbers to
their rule in ``gate/`` and keeps both for the result (``forgegate run`` and the standalone axis commands).
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.verdict import Gate, Verdict
from forgegate.gate.damage import DamageVerdict, damage_verdict
from forgegate.gate.memorization import memorization_verdict
from forgegate.gate.voice import voice_verdict
from forgegate.metrics.damage import DamageReport
from forgegate.metrics.memorization import MemorizationReport
from forgegate.metrics.voice import VoiceReport
from forgegate.results.damage import DamageAxis, DamageResult
from forgegate.results.memorization import MemorizationAxis, MemorizationResult
from forgegate.results.voice import VoiceAxis, VoiceResult


@dataclass(frozen=True)
class GatedDamage:
    """Axis C: what ``metrics.damage`` measured and what ``gate.damage`` decided on it."""

    report: DamageReport
    decided: DamageVerdict

    @property
    def verdict(self) -> Verdict:
        return self.decided.verdict

    def axis(self) -> DamageAxis:
        """The axis as a plan comparison carries it."""
        return DamageAxis.from_report(self.report, self.verdict, self._outcomes())

    def result(self) -> DamageResult:
        """``forgegate damage --json``."""
        return DamageResult.of(self.report, self.verdict, self._outcomes())

    def _outcomes(self) -> dict[str, Gate]:
        return {name: reason.outcome for name, reason in self.decided.by_metric.items()}


def gate_damage(report: DamageReport) -> GatedDamage:
    """Hand axis C's measurements to its rule."""
    return GatedDamage(report, damage_verdict(report))


@dataclass(frozen=True)
class GatedMemorization:
    """Axis B: what ``metrics.memorization`` measured (with both controls) and what ``gate.memorization`` decided."""

    report: MemorizationReport
    verdict: Verdict

    def axis(self) -> MemorizationAxis:
        """The axis as a plan comparison carries it."""
        return MemorizationAxis.from_report(self.report, self.verdict)

    def result(self, corpus: list[str] | None = None, control_seed: int | None = None) -> MemorizationResult:
        """``forgegate memorization --json``: the axis, the corpus files and the control seed."""
        return MemorizationResult.of(self.report, self.verdict, corpus, control_seed)


def gate_memorization(report: MemorizationReport) -> GatedMemorization:
    """Hand axis B's measurements to its rule."""
    return GatedMemorization(report, memorization_verdict(report))


@dataclass(frozen=True)
class GatedVoice:
    """Axis A: what ``metrics.voice`` measured (with its controls) and what ``gate.voice`` decided."""

    report: VoiceReport
    verdict: Verdict

    def axis(self) -> VoiceAxis:
        """The axis as a plan comparison carries it."""
        return VoiceAxis.from_report(self.report, self.verdict)

    def result(self, reference_paths: list[str] | None = None) -> VoiceResult:
        """``forgegate voice --json``."""
        return VoiceResult.of(self.report, self.verdict, reference_paths)


def gate_voice(report: VoiceReport) -> GatedVoice:
    """Hand axis A's measurements to its rule."""
    return GatedVoice(report, voice_verdict(report))
