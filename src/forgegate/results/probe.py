"""One line of a training probe file (``forgegate-probes.jsonl`` in a trainer's output folder).

The callback (``forgegate.training.ForgegateCallback``) and ``forgegate watch`` append one record per
probed checkpoint; ``forgegate plan from-training`` reads them to drop checkpoints that showed a
failure mode. A line is never rewritten.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from forgegate.core.verdict import Gate
from forgegate.results.base import SchemaVersion, Strict

ProbeSource = Literal["callback", "watch"]
"""Who probed: the callback inside the trainer, or ``forgegate watch`` from outside."""


ModeTestName = Literal["fisher_exact_greater"]
"""How a probe's count is tested against the baseline's: Fisher's exact test, one-sided (more items than before)."""


class ModeTest(Strict):
    """One failure mode of a probe set against the baseline probe: the two counts and the exact test of them."""

    mode: str
    """The failure mode (``RUNAWAY_LOOP``, ``IDENTITY_LOOP``, ...)."""
    count: int
    """Answered items of this probe that showed the mode."""
    answered: int
    """Answered items of this probe (the count's denominator)."""
    baseline_count: int
    """Answered items of the baseline probe (step 0, before training) that showed the mode."""
    baseline_answered: int
    """Answered items of the baseline probe."""
    test: ModeTestName
    """The test: ``fisher_exact_greater``, Fisher's exact test on the 2x2 table of the two counts, one-sided."""
    p_value: float
    """The chance of a count this far above the baseline's if training changed nothing (1.0: not above it)."""


class ProbeRecord(Strict):
    """What the probe battery found in one checkpoint (or one step's in-memory model)."""

    kind: Literal["probe"]
    schema_version: SchemaVersion
    forgegate_version: str
    created: str
    """UTC time the record was written (ISO 8601)."""
    source: ProbeSource
    step: int = Field(ge=0)
    epoch: float | None
    checkpoint: str | None
    """The checkpoint folder's name (``checkpoint-500``); None for an in-memory probe between saves."""
    model: str
    """The label the probe's run carries (the checkpoint and how it was loaded)."""
    run_id: str
    store: str
    """The run store holding every answer (``forgegate report`` and ``rescore`` read it)."""
    eval_loss: float | None
    """The trainer's eval_loss at this step, when it logged one."""
    items: int
    answered: int
    """Items with an answer; an errored item is never counted as correct."""
    correct: int
    accuracy: float | None
    """correct / items; None when nothing was answered."""
    loops: int
    """Items whose answer looped (RUNAWAY_LOOP or IDENTITY_LOOP)."""
    stop_failures: int
    walls: int
    wall_breaks: int
    """Wall items (human input) the model answered instead of refusing."""
    failure_modes: list[str]
    """Every failure mode the probe found, sorted."""
    mode_counts: dict[str, int]
    """How many answered items showed each failure mode (a mode absent from the dict: none)."""
    controls_passed: bool
    """The loop detector found its planted loops and flagged no clean text (False: the probe is INVALID)."""
    gate: Gate
    """The probe gate's verdict (gloss-v2-probe.toml): a trend to watch, not a ship decision."""
    elapsed_s: float
    versus_baseline: list[ModeTest] = Field(default_factory=list)
    """Every failure mode this probe or the baseline probe showed, tested against the baseline (step 0); empty
    for the baseline itself and when there was none. Whether a mode counts as shown is the stop rule's
    (``forgegate.training.stopping``: p at most the false-stop rate shared among the watched modes)."""
    stopped_training: str | None = None
    """Why the callback stopped training at this probe; None when it did not."""
