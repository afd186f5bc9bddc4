"""A plan run's semantic blocks: the codebook used, E3_TOPOLOGY and E4_R_META (``semantic.codebook``, ...).

Built by ``pipeline.semantic.topology_inputs`` (``semantic.topology.topology_block``) and
``pipeline.semantic.recurrence_sheet`` (``semantic.recurrence.score_recurrence``). A block not scored
yet carries only ``experiment``, ``scored`` and
``note`` (and the blank sheet for E4); the JSON keeps exactly the keys it was built with (``Sparse``).
"""

from __future__ import annotations

from typing import Literal

from forgegate.results.base import Estimate, Sparse, Strict
from forgegate.results.judge_record import JudgeRecord
from forgegate.results.primary import MetricEntry
from forgegate.results.semantic_checks import Agreement, BootstrapRecord


class Difference(Estimate, Sparse):
    """Candidate minus control across tasks, with its interval and bootstrap p-value."""

    p_boot: float | None
    """The bootstrap p-value of the difference; null without a paired difference."""
    note: str | None = None
    """Why there is no difference."""
    p_holm: float | None = None
    """Holm-adjusted p-value (a secondary endpoint)."""


class Ratio(Estimate, Sparse):
    """A ratio with its interval (E4: structural rate over style-control rate; E3: candidate over control)."""

    note: str | None = None
    """Why the ratio is NA."""


class TopologyEndpoint(Strict):
    """One E3 endpoint: the difference and each aggregate's own value."""

    endpoint: str
    """AGG_COVERAGE (primary) or MINORITY_RECALL (secondary)."""
    difference: Difference
    """Candidate minus control."""
    ratio: Ratio | None = None
    """Candidate over control, with its interval (null value and a note where the control's value is 0)."""
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
    source: str
    """Where the totals came from: the run store (the plan's ``cost_arms``) or the aggregates file's
    self-reported ``total_tokens``."""
    per_task: dict[str, dict[str, int]]
    """Task -> aggregate -> tokens."""
    path: str
    """The aggregates file the budgets were read from."""
    cost_arms: dict[str, list[str]] | None = None
    """Aggregate -> the plan arms whose stored requests it cost (absent: the file's totals)."""


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
    aggregates_sha256: str | None = None
    """sha256 of the aggregate-coverage file as scored: sealed into the plan's lock the first time, refused if it
    changes after."""
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
    tasks: int | None = None
    """Tasks the two arms answered: the bootstrap's upper-level unit."""
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


class ApparentSplit(Strict):
    """A would-be new cluster among the UNMAPPED confirmation texts (exploratory only)."""

    size: int
    """Texts in it."""
    exemplar: str
    """One of them."""


class ApparentMerge(Strict):
    """Frozen clusters that confirmation texts bridge (exploratory only; no score changes)."""

    clusters: list[str]
    """The frozen clusters bridged."""
    size: int
    """Texts bridging them."""
    exemplar: str
    """One of them."""


class Separation(Strict):
    """Whether any confirmation sample is a development sample of the codebook (refused if so)."""

    development_samples: int | None
    """Development samples the codebook records; null: it records none (separation unchecked)."""
    checked: int
    """Confirmation samples checked."""
    reused: int
    """Development samples among them (always 0: any is refused)."""
    note: str
    """What was checked."""


class CodebookSheets(Strict):
    """The blinded sheets a draft codebook wrote beside it."""

    validation: str
    """The validation sheet (same_meaning pairs)."""
    relevance: str
    """The relevance sheet (R(c))."""


class CodebookValidation(Sparse):
    """The codebook's blinded human validation as the plan declared it: the score, or why there is none yet."""

    sheet: str
    """The filled validation sheet the plan names."""
    sheet_sha256: str | None = None
    """sha256 of the sheet's bytes as scored."""
    key: str
    """The key written beside the sheet."""
    pairs: int | None = None
    """Pairs in the key."""
    labelled: int | None = None
    """Pairs with a same_meaning label."""
    unlabelled_rows: list[str] | None = None
    """Rows still blank."""
    complete: bool | None = None
    """True when no row is blank."""
    agreement: Agreement | None = None
    """Over every labelled pair."""
    within_cluster: Agreement | None = None
    """Over pairs the clustering put in one cluster."""
    between_clusters: Agreement | None = None
    """Over pairs the clustering put in different clusters."""
    cohens_kappa: float | None = None
    """Cohen's kappa between human and clustering."""
    bootstrap: BootstrapRecord | None = None
    """How the intervals were drawn."""
    scored: bool
    """Whether the sheet was there to score."""
    note: str | None = None
    """Why it was not scored."""
    min_agreement: float | None = None
    """The plan's declared minimum agreement (null: reported only)."""


class CodebookInfo(Sparse):
    """The codebook a plan run used: none, a draft built on the run's own samples, or a frozen one."""

    mode: str
    """What kind of codebook, in words (``none`` when the run had no samples to cluster)."""
    frozen: bool | None = None
    """Whether it is frozen (a draft's numbers are exploratory)."""
    path: str | None = None
    """The codebook file."""
    content_hash: str | None = None
    """The frozen codebook's content hash (null for a draft)."""
    frozen_at: str | None = None
    """When it was frozen."""
    judge: JudgeRecord | None = None
    """The assignment rule's judge as the judge describes itself (nli, llm or embedding), with the keys it was
    written with."""
    clusters: dict[str, int] | None = None
    """Task -> clusters."""
    judge_calls: dict[str, int] | None = None
    """Task -> entailment calls while drafting."""
    sheets: CodebookSheets | None = None
    """The sheets a draft wrote."""
    assignment_calls: int | None = None
    """Entailment calls while assigning to the frozen codebook."""
    exploratory_changes: dict[str, list[ApparentSplit]] | None = None
    """Task -> would-be new clusters among the UNMAPPED texts."""
    exploratory_merges: dict[str, list[ApparentMerge]] | None = None
    """Task -> frozen clusters bridged by confirmation texts."""
    separation: Separation | None = None
    """The development / confirmation separation check."""
    validation: CodebookValidation | None = None
    """The declared human validation."""
