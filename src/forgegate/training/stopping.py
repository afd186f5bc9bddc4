"""The stop rule: when a probe shows a failure mode beyond chance against the baseline, and when to stop on it.

A probe *shows* a watched mode when its count of items with the mode is above the baseline probe's (the
model before the first training step) by more than chance allows: Fisher's exact test on the two counts,
one-sided, at a p-value of at most the false-stop rate shared among the watched modes (Bonferroni:
``FALSE_STOP_RATE / len(modes)`` each, so a run that did not change is stopped by a probe at most that
often). A small base model often runs on or repeats already (SmolLM2-135M greedy loops on about half the
probe): one or two items more than that is noise, and stopping on it costs the user the run.

Where the baseline already has a mode in so many items that even every item having it would not be beyond
chance, the probe cannot see that mode grow (``blind_modes``); the callback and ``watch`` say so once.
With no baseline there is nothing to test against: any item with the mode counts.

Three consumers read this one rule: ``ForgegateCallback`` (stop), ``forgegate watch`` (the record and the
table) and ``forgegate plan from-training`` (DROPPED or kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from forgegate.core.modes import FailureMode
from forgegate.errors import UsageError, not_one_of
from forgegate.results import ProbeRecord
from forgegate.results.probe import ModeTest, ModeTestName

FALSE_STOP_RATE = 0.01
"""The default chance, per probe, that a run whose failure modes did not change is stopped (or a checkpoint
dropped) anyway: shared among the watched modes. ``ForgegateCallback(false_stop_rate=...)`` states its own."""
TEST_NAME: ModeTestName = "fisher_exact_greater"
TEST_WORDS = "Fisher's exact test, one-sided"


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


def check_rate(rate: float) -> float:
    """A false-stop rate is a probability strictly between 0 and 1 (0 would never stop, 1 always)."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 < rate < 1:
        raise UsageError(f"false_stop_rate must be a probability between 0 and 1 (e.g. 0.01 for 1% per probe), "
                         f"not {rate!r}")
    return float(rate)


def fisher_greater(count: int, answered: int, baseline_count: int, baseline_answered: int) -> float:
    """One-sided p of Fisher's exact test: ``count``/``answered`` above ``baseline_count``/``baseline_answered``."""
    from scipy.stats import fisher_exact

    table = [[count, answered - count], [baseline_count, baseline_answered - baseline_count]]
    return float(fisher_exact(table, alternative="greater").pvalue)


def mode_test(mode: str, record: ProbeRecord, baseline: ProbeRecord) -> ModeTest:
    """``mode``'s count in ``record`` tested against its count in ``baseline``, out of each one's answered items."""
    count, before = record.mode_counts.get(mode, 0), baseline.mode_counts.get(mode, 0)
    return ModeTest(mode=mode, count=count, answered=record.answered, baseline_count=before,
                    baseline_answered=baseline.answered, test=TEST_NAME,
                    p_value=fisher_greater(count, record.answered, before, baseline.answered))


def versus_baseline(record: ProbeRecord, baseline: ProbeRecord | None) -> list[ModeTest]:
    """Every mode either probe showed, tested against the baseline (what a probe record keeps); none without one."""
    if baseline is None or baseline is record or record.step == baseline.step:
        return []
    modes = sorted(set(record.mode_counts) | set(baseline.mode_counts))
    return [mode_test(mode, record, baseline) for mode in modes]


def usable_baseline(record: ProbeRecord | None, path: Path) -> tuple[ProbeRecord | None, str]:
    """The step-0 probe of probe file ``path`` to test against (None: none usable), and a sentence on it."""
    if record is None:
        return None, f"no baseline probe (step 0) in {path.name}: any item with a watched mode counts"
    if not record.controls_passed:
        return None, ("the baseline probe (step 0) is INVALID (the loop detector's controls failed): not used "
                      "as the floor; any item with a watched mode counts")
    return record, "measured against the baseline probe (step 0, before training)"


def per_mode_rate(rate: float, modes: Sequence[object]) -> float:
    """Each watched mode's share of the false-stop rate (Bonferroni), so the probe as a whole stays within it."""
    return rate / max(len(modes), 1)


@dataclass(frozen=True)
class Shown:
    """A watched mode a probe shows, with the numbers that decided it (``test`` None: there was no baseline)."""

    mode: str
    count: int
    answered: int
    test: ModeTest | None
    threshold: float

    def describe(self) -> str:
        """``RUNAWAY_LOOP in 11/11 items against 5/11 before training (Fisher's ..., p=0.0062 <= 0.01)``."""
        if self.test is None:
            return f"{self.mode} in {self.count}/{self.answered} items (no baseline: any item counts)"
        return describe_test(self.test, self.threshold)


def describe_test(test: ModeTest, threshold: float) -> str:
    """A mode's two counts, the test and its p-value against the threshold, in a clause."""
    sign = "<=" if test.p_value <= threshold else ">"
    return (f"{test.mode} in {test.count}/{test.answered} items against {test.baseline_count}/"
            f"{test.baseline_answered} before training ({TEST_WORDS}, p={test.p_value:.2g} {sign} {threshold:.2g})")


def shown(record: ProbeRecord, modes: Iterable[FailureMode], baseline: ProbeRecord | None,
          rate: float = FALSE_STOP_RATE) -> list[Shown]:
    """The watched modes this probe shows beyond chance against the baseline (any item, with no baseline)."""
    watched = [m.value for m in modes]
    threshold = per_mode_rate(rate, watched)
    out = []
    for mode in watched:
        count = record.mode_counts.get(mode, 0)
        if baseline is None:
            if count:
                out.append(Shown(mode, count, record.answered, None, threshold))
            continue
        test = mode_test(mode, record, baseline)
        if test.p_value <= threshold:
            out.append(Shown(mode, count, record.answered, test, threshold))
    return out


def shown_modes(record: ProbeRecord, modes: Iterable[FailureMode], baseline: ProbeRecord | None,
                rate: float = FALSE_STOP_RATE) -> list[str]:
    """The names of the watched modes this probe shows (``shown``)."""
    return [s.mode for s in shown(record, modes, baseline, rate)]


def blind_modes(baseline: ProbeRecord, modes: Iterable[FailureMode], rate: float = FALSE_STOP_RATE) -> list[str]:
    """Sentences for the watched modes the baseline has in so many items that the probe cannot see them grow.

    A mode is blind when even every answered item having it would not be beyond chance: then no probe of
    this battery can ever show it, and saying nothing would read as "watched, and fine".
    """
    watched = [m.value for m in modes]
    threshold = per_mode_rate(rate, watched)
    n = baseline.answered
    out = []
    for mode in watched:
        before = baseline.mode_counts.get(mode, 0)
        p_all = fisher_greater(n, n, before, n)
        if p_all > threshold:
            out.append(f"the baseline probe (before training) already shows {mode} in {before}/{n} items: even "
                       f"{n}/{n} would not be beyond chance ({TEST_WORDS}, p={p_all:.2g} > {threshold:.2g}), so "
                       f"this probe battery is too small to see {mode} grow and forgegate will not stop or drop on "
                       "it; a larger battery (battery=..., --battery) can")
    return out


def rate_words(rate: float, modes: Sequence[object]) -> str:
    """``false-stop rate 1% per probe (0.5% per mode over 2 watched modes)``."""
    share = f" ({per_mode_rate(rate, modes):.2g} per mode over {len(modes)} watched modes)" if len(modes) > 1 else ""
    return f"false-stop rate {rate:.2g} per probe{share}"


@dataclass
class StopWatch:
    """Counts probes in a row that show a watched mode; says why once ``patience`` is reached."""

    modes: tuple[FailureMode, ...]
    patience: int
    baseline: ProbeRecord | None = None
    false_stop_rate: float = FALSE_STOP_RATE
    streak: list[ProbeRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.patience, bool) or not isinstance(self.patience, int) or self.patience < 1:
            raise UsageError(f"patience must be a whole number of probes, at least 1, not {self.patience!r}")
        self.false_stop_rate = check_rate(self.false_stop_rate)

    def blind(self) -> list[str]:
        """What the baseline keeps this watch from seeing (said once, at the baseline)."""
        return blind_modes(self.baseline, self.modes, self.false_stop_rate) if self.baseline is not None else []

    def observe(self, record: ProbeRecord) -> str | None:
        """Take the next probe; the reason to stop (None: go on)."""
        if not self.modes:
            return None
        found = shown(record, self.modes, self.baseline, self.false_stop_rate)
        self.streak = [*self.streak, record] if found else []
        if len(self.streak) < self.patience:
            return None
        steps = ", ".join(str(r.step) for r in self.streak[-self.patience:])
        watched = [m.value for m in self.modes]
        return (f"stopped by forgegate: {'; '.join(s.describe() for s in found)}, in {self.patience} probe(s) in a "
                f"row (steps {steps}); stop_on={watched}, patience={self.patience}, "
                f"{rate_words(self.false_stop_rate, watched)}")
