"""E3_TOPOLOGY's and E4_R_META's blocks in a plan run's semantic result (``semantic.topology``, ``.recurrence``).

Built by ``pipeline.semantic_topology`` (``semantic.topology.topology_block``) and ``pipeline.semantic_recurrence``
(``semantic.recurrence.score_recurrence``). A block not scored yet carries only ``experiment``, ``scored`` and
``note`` (and the blank sheet for E4); the JSON keeps exactly the keys it was built with (``Sparse``).
"""

from __future__ import annotations

from typing import Literal

from forgegate.results.base import Estimate, Strict
from forgegate.results.plan_cost import Sparse
from forgegate.results.primary import MetricEntry
from forgegate.results.semantic_checks import BootstrapRecord


class Difference(Estimate, Sparse):
    """Candidate minus control across tasks, with its interval and bootstrap p-value."""

    p_boot: float | None
    """The bootstrap p-value of the difference; null without a paired difference."""
    note: str | None = None
    """Why there is no difference."""
    p_holm: float | None = None
    """Holm-adjusted p-value (a secondary endpoint)."""


class TopologyEndpoint(Strict):
    """One E3 endpoint: the difference and each aggregate's own value."""

    endpoint: str
    """AGG_COVERAGE (primary) or MINORITY_RECALL (secondary)."""
    difference: Difference
    """Candidate minus control."""
    control: MetricEntry | None
    """The control aggregate's value; null when the table has none."""
    candidate: MetricEntry | None
    """The candidate aggregate's value; null when the table has none."""


class TokenBudgets(Strict):
    """The two aggregates' total tokens, and whether they are matched within the plan's tolerance."""

    rule: str
    """How the gap is computed."""
    totals: dict[str, int]
    """Aggregate -> total tokens over every task and pool."""
    gap: float
    """|a - b| / max(a, b)."""
    tolerance: float
    """The plan's allowed gap."""
    matched: bool
    """Whether the gap is within the tolerance."""
    per_task: dict[str, dict[str, int]]
    """Task -> aggregate -> tokens."""
    path: str
    """The aggregates file the budgets were read from."""


class HolmDeclaration(Strict):
    """Which tests the Holm correction runs over, and by what."""

    family: str
    """The family of tests."""
    method: str
    """``holm``."""
    library: str
    """The function that computed it."""


class TopologyBlock(Sparse):
    """E3_TOPOLOGY: AGG_COVERAGE (primary) and MINORITY_RECALL (secondary, Holm), candidate - control."""

    experiment: Literal["E3_TOPOLOGY"]
    """Always ``E3_TOPOLOGY``."""
    control: str | None = None
    """The control aggregate."""
    candidate: str | None = None
    """The candidate aggregate."""
    budgets: TokenBudgets | None = None
    """Both aggregates' token budgets."""
    primary: TopologyEndpoint | None = None
    """AGG_COVERAGE."""
    secondary: list[TopologyEndpoint] | None = None
    """MINORITY_RECALL."""
    holm: HolmDeclaration | None = None
    """The secondary endpoints' correction."""
    intervals: str | None = None
    """How the intervals were resampled."""
    scored: bool
    """False until the aggregates exist (``note`` says what is missing)."""
    note: str | None = None
    """Why the block is not scored."""


class RecurrenceBootstrap(BootstrapRecord):
    """The bootstrap of the recurrence rates, and what it resampled."""

    unit: str
    """What was resampled."""


class RecurrenceRate(Estimate):
    """One arm's blinded recurrence rate."""

    n: int
    """Answers labelled."""
    recurring: int
    """Answers labelled as recurring."""


class Ratio(Estimate, Sparse):
    """Structural rate over style-control rate."""

    note: str | None = None
    """Why the ratio is NA."""


class RecurrenceBlock(Sparse):
    """E4_R_META: the blinded structural-recurrence rate per arm, structural - style control, and the ratio."""

    experiment: Literal["E4_R_META"]
    """Always ``E4_R_META``."""
    endpoint: str | None = None
    """The endpoint measured (R_META's recurrence rate)."""
    structural: str | None = None
    """The arm with the structural change."""
    style_control: str | None = None
    """The arm with the style-only change."""
    sheet: str | None = None
    """The filled sheet scored."""
    sheet_sha256: str | None = None
    """sha256 of the filled sheet's bytes."""
    key: str | None = None
    """The key written beside the blank sheet."""
    rows: int | None = None
    """Rows in the key."""
    unlabelled_rows: list[str] | None = None
    """Rows still blank."""
    complete: bool | None = None
    """True when no row is blank."""
    bootstrap: RecurrenceBootstrap | None = None
    """How the intervals were drawn."""
    rates: dict[str, RecurrenceRate] | None = None
    """Arm -> its rate; null while rows are blank."""
    difference: Estimate | None = None
    """Structural minus style control; null while rows are blank."""
    ratio: Ratio | None = None
    """Structural over style control; null while rows are blank."""
    scored: bool
    """Whether there is a difference to read."""
    blank_sheet: str
    """The blank sheet to label."""
    note: str | None = None
    """Why the block is not scored (no filled sheet yet)."""
