"""Reading one stored run for people: its items' checks, and which answers await a human review."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgegate.battery import Battery, load_battery
from forgegate.checks import AnswerScore, score_item
from forgegate.core.loop_settings import LoopSettings
from forgegate.core.names import name_key, name_problem
from forgegate.core.records import StoredResponse
from forgegate.errors import ForgegateError, UsageError
from forgegate.pipeline.gloss_inputs import stored_gate_config
from forgegate.results.eval import ItemReview, ReviewEntry
from forgegate.store import ReviewDecision, RunMeta, RunStore


@dataclass(frozen=True)
class ReviewState:
    row: StoredResponse
    trail: tuple[ReviewDecision, ...] = ()  # every decision on the answer, oldest first

    @property
    def decision(self) -> str | None:
        """"pass" / "fail" (the latest decision), or None while pending."""
        return self.trail[-1].verdict if self.trail else None

    @property
    def latest(self) -> ReviewDecision | None:
        return self.trail[-1] if self.trail else None


def _decision(verdict: str) -> Literal["pass", "fail"]:
    if verdict == "pass":
        return "pass"
    if verdict == "fail":
        return "fail"
    raise ValueError(f"a stored review says {verdict!r}, not pass or fail")


def item_review(trail: Sequence[ReviewDecision]) -> ItemReview | None:
    """An item's ``review`` in the result (schema version 2): the latest decision, the earlier ones beside it."""
    if not trail:
        return None
    latest = trail[-1]
    return ItemReview(decision=_decision(latest.verdict), reviewer=latest.reviewer, decided_at=latest.decided_at,
                      note=latest.note,
                      history=[ReviewEntry(decision=_decision(d.verdict), reviewer=d.reviewer, decided_at=d.decided_at,
                                           note=d.note) for d in trail[:-1]])


def provenance(decision: ReviewDecision) -> str:
    """One line for people: who decided, when, and why (the one wording the command and the pages share)."""
    why = f": {decision.note}" if decision.note else ""
    return f"{decision.verdict} by {decision.reviewer} at {decision.decided_at}{why}"


def run_battery(meta: RunMeta) -> Battery | None:
    """The battery a run was generated from, when it has one and the file is still there."""
    path = meta.battery_path
    if not path or not Path(path).exists():
        return None
    battery = load_battery(Path(path))
    recorded = "battery_sha256" in meta.model_fields_set
    return battery if not recorded or meta.battery_sha256 == battery.sha256 else None


def run_loop_settings(meta: RunMeta) -> LoopSettings | None:
    """The loop rule the run was gated with (its stored gate config's ``[loops]``); None: GLOSS v2's own."""
    if meta.gate_config is None:
        return None
    try:
        return stored_gate_config(meta.gate_config, "stored gate config").config.loops
    except ForgegateError:
        return None


def item_checks(battery: Battery | None, row: StoredResponse, loop_settings: LoopSettings | None = None
                ) -> AnswerScore | None:
    """The checks of one stored answer (None: an error, or a run without a battery), with the run's loop rule."""
    if battery is None or not row.ok:
        return None
    try:
        return score_item(battery.by_id(row.item_id), row.completion(), loop_settings=loop_settings)
    except (KeyError, ForgegateError):
        return None


def review_states(store_path: Path) -> list[ReviewState]:
    """Every answer whose check needs a human decision, with the latest decision if any."""
    with RunStore.open(store_path, readonly=True) as store:
        meta = store.meta()
        battery, loop_settings = run_battery(meta), run_loop_settings(meta)
        reviews = store.review_trails()
        rows = store.latest()
    states = []
    for row in rows:
        checks = item_checks(battery, row, loop_settings)
        if checks is not None and checks.needs_review:
            states.append(ReviewState(row, reviews.get(row.request_key, ())))
    return states


MAX_REVIEWER_CHARS = 80
"""A reviewer's name is a name (the view's form says so too): 50 KB of it is refused, not stored."""
MAX_NOTE_CHARS = 2000
"""A note says why, in a sentence or a paragraph; anything longer belongs in a file the note names."""


def record_review(store_path: Path, item: str, *, passed: bool | None, reviewer: str | None,
                  note: str | None) -> ReviewState:
    """Append a reviewer's decision on ``item`` (an item id or a full request key) to the store.

    The one way a review is recorded, whoever asks (``forgegate review`` or ``forgegate view``):
    only an answer that awaits a human decision can take one, and a decision names its reviewer.
    A decision on an answer already decided is a new record beside the old one, never an overwrite.
    """
    matches = [s for s in review_states(store_path) if item in (s.row.item_id, s.row.request_key)]
    if not matches:
        raise UsageError(f"item '{item}' of run {store_path.stem} does not need a review")
    if len({s.row.request_key for s in matches}) > 1:
        keys = sorted({s.row.request_key for s in matches})
        raise UsageError(f"item '{item}' of run {store_path.stem} names {len(keys)} answers that await a review "
                         f"({', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}): a decision names one answer, "
                         "so give its request key")
    if passed is None or not reviewer or not name_key(reviewer):
        raise UsageError("a decision needs --pass or --fail and --reviewer NAME")
    problem = name_problem(reviewer, "the reviewer's name")
    if problem is not None:
        raise UsageError(problem)
    if len(reviewer.strip()) > MAX_REVIEWER_CHARS:
        raise UsageError(f"a reviewer's name has at most {MAX_REVIEWER_CHARS} characters, not "
                         f"{len(reviewer.strip())}: shorten it")
    if note is not None and len(note) > MAX_NOTE_CHARS:
        raise UsageError(f"a review note has at most {MAX_NOTE_CHARS} characters, not {len(note)}: shorten it "
                         "(or name a file that says more)")
    verdict = "pass" if passed else "fail"
    key = matches[0].row.request_key
    with RunStore.open(store_path, create=False) as opened:
        opened.add_review(key, verdict, reviewer.strip(), note or None)
        trail = opened.review_trails().get(key, ())
    return ReviewState(matches[0].row, trail)
