"""When a training run should stop: a watched failure mode shown by ``patience`` probes in a row.

A probe *shows* a mode when more of its items have the mode than the baseline probe's (the model
before the first training step), or, with no baseline, when any item has it. A small base model
often runs on or repeats already (SmolLM2-135M greedy loops on half the probe): training did not
cause that, and stopping on it would stop every run at its first checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from forgegate.core.modes import FailureMode
from forgegate.errors import UsageError, not_one_of
from forgegate.results import ProbeRecord


def stop_modes(names: Iterable[str]) -> tuple[FailureMode, ...]:
    """``stop_on`` names as failure modes; an unknown name is a usage error that lists the known ones."""
    if isinstance(names, str):
        raise UsageError(f"stop_on takes a list of failure modes, not one string: stop_on=[{names!r}]")
    known = tuple(mode.value for mode in FailureMode)
    modes = []
    for name in names:
        if name not in known:
            raise UsageError(f"stop_on: {not_one_of(str(name), known)}")
        modes.append(FailureMode(name))
    return tuple(modes)


def shown_modes(record: ProbeRecord, modes: Iterable[FailureMode], baseline: ProbeRecord | None) -> list[str]:
    """The watched modes this probe shows, beyond what the baseline already showed."""
    floor = baseline.mode_counts if baseline is not None else {}
    return [m.value for m in modes if record.mode_counts.get(m.value, 0) > floor.get(m.value, 0)]


@dataclass
class StopWatch:
    """Counts probes in a row that show a watched mode; says why once ``patience`` is reached."""

    modes: tuple[FailureMode, ...]
    patience: int
    baseline: ProbeRecord | None = None
    streak: list[ProbeRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.patience, bool) or not isinstance(self.patience, int) or self.patience < 1:
            raise UsageError(f"patience must be a whole number of probes, at least 1, not {self.patience!r}")

    def observe(self, record: ProbeRecord) -> str | None:
        """Take the next probe; the reason to stop (None: go on)."""
        if not self.modes:
            return None
        shown = shown_modes(record, self.modes, self.baseline)
        self.streak = [*self.streak, record] if shown else []
        if len(self.streak) < self.patience:
            return None
        steps = ", ".join(str(r.step) for r in self.streak[-self.patience:])
        counts = ", ".join(f"{m} in {record.mode_counts.get(m, 0)}/{record.items} items" for m in shown)
        before = (f" (before training: {', '.join(f'{m} {self.baseline.mode_counts.get(m, 0)}' for m in shown)})"
                  if self.baseline is not None else "")
        return (f"stopped by forgegate: {counts}{before}, in {self.patience} probe(s) in a row "
                f"(steps {steps}); stop_on={[m.value for m in self.modes]}, patience={self.patience}")
