"""Before a plan generates: the gloss and semantic instruments' inputs loaded and checked (errors at file:line).

Nothing is generated on bad input: ``forgegate run`` calls :func:`preflight` right after
the lock check, and the scorers call the same loaders again on the stored answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from forgegate.pipeline.gloss_inputs import GlossInputs, read_gate_config, read_gloss_battery
from forgegate.pipeline.plan.confirmatory import check_confirmatory
from forgegate.pipeline.plan.quality_scoring import check_quality_declarations
from forgegate.pipeline.semantic.judge import rebuildable_judges
from forgegate.plan import LoadedPlan, is_bundled
from forgegate.semantic.codebook import Codebook, load_codebook
from forgegate.semantic.relevance_record import RelevanceRecord, load_relevance
from forgegate.semantic.separation import REBUILD


def gloss_inputs(loaded: LoadedPlan, contents: Mapping[str, bytes] | None = None) -> GlossInputs:
    """The battery (checked against the gate config, every category present) and the gate config, loaded as an
    eval loads them (``pipeline.gloss_inputs``). With ``contents`` (the plan's inputs as its lock check read and
    hashed them) the files are not read again."""
    plan = loaded.plan
    params = plan.instruments.gloss
    assert params is not None and plan.fixture.battery is not None  # the plan loader checked both

    def given(written: str) -> tuple[Path | None, bytes | None]:
        if is_bundled(written):
            return None, None
        return loaded.resolve(written), None if contents is None else contents[written]

    gate = read_gate_config(*given(params.gate_config))
    battery_path, battery_raw = given(plan.fixture.battery)
    battery = read_gloss_battery(battery_path, gate.config, battery_raw)
    seeds = plan.seed_list()
    if len(seeds) != 1:
        raise loaded.error(("seeds",), f"the gloss instrument scores each battery item once; the plan has "
                           f"{len(seeds)} seeds", hint="seeds = [0] (one seed per GLOSS run)")
    return GlossInputs(battery, gate, seeds[0])


@dataclass(frozen=True)
class SemanticInputs:
    """A frozen codebook and its adjudicated relevance, when the plan names them."""

    codebook: Codebook | None
    codebook_path: Path | None
    relevance: dict[str, int] | None
    relevance_path: Path | None
    relevance_record: RelevanceRecord | None = None
    """The adjudicated record (annotators, adjudicator, kappa) when the relevance file is one; None: a bare file."""


def semantic_inputs(loaded: LoadedPlan, task_ids: list[str],
                    contents: Mapping[str, bytes] | None = None) -> SemanticInputs:
    """Roles, experiment, frozen codebook (covering every task) and relevance (covering every frozen cluster).
    With ``contents`` (the plan's inputs as its lock check read and hashed them) the codebook and relevance file
    are parsed from those bytes, not read again."""
    params = loaded.plan.instruments.semantic
    assert params is not None
    where = ("instruments", "semantic")
    if params.recovery is None:
        raise loaded.error(where, "forgegate run scores conditions A, B and R in one table: "
                           "'recovery' is required", hint="name the arm that runs B under the recovery probes")
    if len({params.reference, params.contracted, params.recovery}) != 3:
        raise loaded.error(where, "reference, contracted and recovery must name three different arms")
    if params.primary_endpoint in ("AGG_COVERAGE", "MINORITY_RECALL") and params.aggregation is None:
        raise loaded.error((*where, "primary_endpoint"), f"{params.primary_endpoint} needs branch-pool aggregates, "
                           "which a plan cannot declare yet",
                           hint="score it from files: forgegate semantic metrics --aggregates Y.jsonl")
    if params.codebook is None:
        if params.relevance is not None:
            raise loaded.error((*where, "relevance"), "relevance R(c) is annotated on the clusters of a frozen "
                               "codebook, and this plan names none",
                               hint="name the frozen 'codebook', or leave 'relevance' out (every cluster counts "
                                    "as relevant: the unfiltered analysis)")
        return SemanticInputs(None, None, None, None)
    book_path = loaded.resolve(params.codebook)
    book = load_codebook(book_path, require_frozen=True,
                         raw=None if contents is None else contents[params.codebook])
    if params.confirmatory and book.development_samples is None:  # refused before generating, not after
        raise loaded.error((*where, "codebook"), "the frozen codebook records no development-sample hashes, so "
                           "nothing shows the confirmation samples are not its development samples",
                           hint=f"{REBUILD}; or set confirmatory = false for an exploratory run")
    judge = str(book.rule.judge.get("judge"))
    if judge not in rebuildable_judges():
        raise loaded.error((*where, "codebook"), f"the codebook's judge {judge!r} is not one forgegate run can "
                           f"rebuild ({', '.join(rebuildable_judges())})")
    missing_tasks = [t for t in task_ids if t not in book.tasks]
    if missing_tasks:
        raise loaded.error((*where, "codebook"), f"the frozen codebook has no clusters for task(s) "
                           f"{', '.join(missing_tasks[:5])}",
                           hint="the fixture's item ids are the tasks; freeze a codebook built on the same tasks")
    relevance: dict[str, int] | None = None
    rel_path: Path | None = None
    record: RelevanceRecord | None = None
    if params.relevance is not None:
        rel_path = loaded.resolve(params.relevance)
        read = load_relevance(rel_path, None if contents is None else contents[params.relevance])
        relevance, record = read.labels, read.record
        if record is not None and record.header.codebook_hash not in (None, book.content_hash):
            raise loaded.error((*where, "relevance"), f"{rel_path} was annotated on codebook "
                               f"{record.header.codebook_hash}, not the plan's ({book.content_hash})",
                               hint="annotate the sheet of the plan's frozen codebook (forgegate semantic sheets)")
        frozen = [c.id for t in task_ids for c in book.tasks[t].clusters]
        foreign = sorted(set(relevance) - {c.id for t in book.tasks.values() for c in t.clusters})
        if foreign:
            raise loaded.error((*where, "relevance"), f"{rel_path} names cluster(s) the frozen codebook does not "
                               f"have: {', '.join(foreign[:5])}{' ...' if len(foreign) > 5 else ''}",
                               hint="annotate the sheet of the plan's frozen codebook (forgegate semantic sheets)")
        missing = [c for c in frozen if c not in relevance]
        if missing:
            raise loaded.error((*where, "relevance"), f"no relevance row for frozen cluster(s) "
                               f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}",
                               hint="every frozen cluster needs its adjudicated R(c) (0 or 1) before scoring")
    return SemanticInputs(book, book_path, relevance, rel_path, record)


def preflight(loaded: LoadedPlan, task_ids: list[str], contents: Mapping[str, bytes] | None = None) -> None:
    """Load and check every input of the gloss and semantic instruments the plan declares (from ``contents``,
    the bytes the lock check read, where given)."""
    inst = loaded.plan.instruments
    if inst.gloss is not None:
        gloss_inputs(loaded, contents)
    if inst.semantic is not None:
        semantic_inputs(loaded, task_ids, contents)
        check_confirmatory(loaded, contents)
        check_quality_declarations(loaded, task_ids)
