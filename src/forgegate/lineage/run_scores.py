"""The scores a paired comparison rests on, read through the typed eval result (``forgegate.results``).

``RunScores`` is a view, not a file format: it is built from an ``EvalResult`` (a result
JSON validated by its model) or from a lineage record, so that ``compare`` and
``graduate`` pair either the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from forgegate.checks.signatures import signatures_present
from forgegate.checks.stop_distribution import STOP_CATEGORY, StopAnswer, StopDistribution, stop_distribution
from forgegate.core.failure_modes import load_failure_modes
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.results import EvalResult, LineageRecord, RecordedItem, load_json, parse_as

EVAL_HINT = "pass the file written by `forgegate eval --json` (or a run id)"


class ResultItem(RecordedItem):
    """One scored request of a run: an item of the battery under one seed (the recorded fields, plus the
    single ``failure_mode`` label older results carry)."""

    failure_mode: str | None = None

    @property
    def key(self) -> tuple[str, int | None]:
        """Items pair across runs by (item id, seed)."""
        return (self.id, self.seed)

    @property
    def errored(self) -> bool:
        return self.finish == "error" or self.score is None

    @property
    def all_failure_modes(self) -> frozenset[str]:
        modes = set(self.failure_modes)
        if self.failure_mode:
            modes.add(self.failure_mode)
        return frozenset(modes)

    def recorded(self) -> RecordedItem:
        """The item as a lineage record keeps it."""
        return RecordedItem(id=self.id, category=self.category, seed=self.seed, score=self.score,
                            passed=self.passed, finish=self.finish, failure_modes=sorted(self.all_failure_modes))


class RunBattery(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sha256: str


class RunGateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    sha256: str


class RunCategory(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    score: float | None
    gate: Gate | None = None
    """None for a lineage record (it keeps the score only)."""


class RunScores(BaseModel):
    """The parts of an eval result a comparison or a lineage record rests on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None
    run_id: str | None
    battery: RunBattery
    gate_config: RunGateConfig
    gate: Gate
    sigma_total: float | None
    categories: dict[str, RunCategory]
    failure_modes: list[str]
    model_digest: str | None = None
    items: list[ResultItem]
    pass_rates: dict[str, float] | None = None
    """Item id -> passes / K over its K samples (issue 47), for the items with every sample scored; None with
    one sample per item."""
    signatures: dict[str, bool | None] = Field(default_factory=dict)
    """The v9 failure-mode signatures (``checks.signatures.signatures_present``): what a comparison calls a new or
    resolved failure mode."""

    @property
    def all_failure_modes(self) -> frozenset[str]:
        """The run's failure modes: its own list united with every item's labels."""
        modes = set(self.failure_modes)
        for item in self.items:
            modes |= item.all_failure_modes
        return frozenset(modes)

    def rate_items(self) -> list[ResultItem]:
        """One pair unit per item, scored by its pass rate over the K samples (an item without every sample
        scored is errored: never compared as a pass)."""
        rates = self.pass_rates or {}
        return [ResultItem(id=i.id, category=i.category, seed=None, score=rates.get(i.id), passed=None,
                           finish=i.finish if i.id in rates else "error", failure_modes=i.failure_modes,
                           failure_mode=i.failure_mode) for i in self.items]

    @staticmethod
    def of(result: EvalResult) -> RunScores:
        return RunScores(
            model=result.model, run_id=result.run_id, battery=RunBattery(sha256=result.battery.sha256),
            gate_config=RunGateConfig(name=result.gate_config.name, sha256=result.gate_config.sha256),
            gate=result.gate, sigma_total=result.sigma_total,
            categories={k: RunCategory(score=v.score, gate=v.gate) for k, v in result.categories.items()},
            failure_modes=result.failure_modes, model_digest=result.model_digest,
            items=[ResultItem(id=i.id, category=i.category, seed=i.seed, score=i.score, passed=i.passed,
                              finish=i.finish, failure_modes=i.failure_modes, failure_mode=i.failure_mode)
                   for i in result.items],
            pass_rates=None if result.samples is None else {
                item_id: entry.passes / entry.samples for item_id, entry in result.samples.items.items()
                if entry.answered == entry.samples},
            signatures=result_signatures(result))

    @staticmethod
    def of_record(record: LineageRecord) -> RunScores:
        """A lineage record's scores in the shape a paired comparison reads."""
        return RunScores(
            model=record.model, run_id=record.run_id, battery=RunBattery(sha256=record.battery_sha256),
            gate_config=RunGateConfig(name=record.gate_config_name, sha256=record.gate_config_sha256),
            gate=record.battery_gate, sigma_total=record.sigma_total,
            categories={k: RunCategory(score=v) for k, v in record.category_scores.items()},
            failure_modes=record.failure_modes, model_digest=record.model_digest,
            items=[ResultItem(**i.model_dump()) for i in record.items], pass_rates=record.pass_rates,
            signatures=record_signatures(record))


def result_stop(result: EvalResult) -> StopDistribution | None:
    """LX-STOP's termination distribution as the result recorded it (None: the result has no LX-STOP items). A
    result written before it recorded one holds no answer lengths: every LX-STOP answer counts as missing, so
    STOP_FAILURE is undecided, never absent."""
    recorded = result.stop_distribution
    if recorded is not None:
        return stop_distribution((StopAnswer(a.id, a.max_tokens, a.tokens, a.finish) for a in recorded.answers),
                                 recorded.category)
    return stop_distribution(StopAnswer(i.id, 1, None, None) for i in result.items if i.category == STOP_CATEGORY)


def result_signatures(result: EvalResult) -> dict[str, bool | None]:
    """A result's v9 signatures by the one definition (``checks.signatures.signatures_present``)."""
    return signatures_present(({"failure_modes": [*i.failure_modes, *([i.failure_mode] if i.failure_mode else [])]}
                               for i in result.items), stop=result_stop(result))


def record_signatures(record: LineageRecord) -> dict[str, bool | None]:
    """A lineage record's v9 signatures: those graduation judged, as it recorded them; for a record written before
    it kept them, the item-scope ones from its items' labels (STOP_FAILURE left out: its lengths were not kept)
    and the run-scope ones from its failure modes."""
    if record.failure_mode_signatures is not None:
        return dict(record.failure_mode_signatures)
    run_scope = {name for name, mode in load_failure_modes().items() if mode.scope == "run"}
    return signatures_present(({"failure_modes": i.failure_modes} for i in record.items), stop=None,
                              run_labels=[m for m in record.failure_modes if m in run_scope])


def parse_eval(payload: Any, source: Path | str) -> EvalResult:
    """An eval (or live) result through its model (a model already typed is taken as it is); any other kind
    is an InputError."""
    return payload if isinstance(payload, EvalResult) else parse_as(EvalResult, payload, source)


def parse_run_scores(payload: EvalResult | Any, source: Path | str) -> RunScores:
    """Validate an eval result (through ``EvalResult``; a typed one as it is) and take the paired view;
    ``source`` names it in errors."""
    result = RunScores.of(parse_eval(payload, source))
    seen: set[tuple[str, int | None]] = set()
    for item in result.items:
        if item.key in seen:
            raise InputError(source, f"item '{item.id}' with seed {item.seed} appears twice",
                             field="items", hint="one result per (item id, seed) is expected")
        seen.add(item.key)
    return result


def load_run_scores(path: Path) -> RunScores:
    """Read and validate an eval result JSON file."""
    return parse_run_scores(load_json(Path(path), hint=EVAL_HINT), path)
