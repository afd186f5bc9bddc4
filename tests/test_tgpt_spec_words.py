"""Issue 44, items 5 and 7: T_GPT v0.8.1's intervals and locks, each rule tested against the spec's own sentence."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from semantic_helpers import RELEVANCE
from test_plan_confirmatory import confirmatory
from test_semantic_topology import GROUPED, params, write_aggregates

from forgegate.cli.failure import user_fault
from forgegate.errors import InputError
from forgegate.pipeline.plan.confirmatory import check_confirmatory
from forgegate.pipeline.semantic.topology_inputs import topology_inputs
from forgegate.plan import load_plan
from forgegate.plan.lock import LockRefusedError, check_lock, lock_plan, read_lock
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.codebook import Codebook, TextSample, freeze
from forgegate.semantic.recurrence import recurrence_sheet, score_recurrence
from forgegate.semantic.sheets import read_sheet, write_filled_sheet
from tests.plan_helpers import line_of


def _e4_sheet(folder: Path, structural_tasks: dict[str, bool], per_task: int = 16) -> tuple[Path, Path]:
    """S recurs on every answer of the tasks marked True and on none of the others; C never recurs."""
    samples = [TextSample(task=t, condition="S", sample=i, text=f"{'again' if recurs else 'fresh'} {t} {i}")
               for t, recurs in structural_tasks.items() for i in range(per_task)]
    samples += [TextSample(task=t, condition="C", sample=i, text=f"plain {t} {i}")
                for t in structural_tasks for i in range(per_task)]
    sheet, key = folder / "recurrence_sheet.csv", folder / "recurrence_key.csv"
    recurrence_sheet(samples, {t: "Critique it." for t in structural_tasks}, ("S", "C"), sheet, key, seed=1)
    _, rows = read_sheet(sheet)
    filled = folder / "filled.csv"
    write_filled_sheet(sheet, filled, "row", "recurs", {r["row"]: int(r["answer"].startswith("again")) for r in rows})
    return filled, key


def test_e4_interval_resamples_tasks_then_generations(tmp_path: Path) -> None:
    """T_GPT v0.8.1, uncertainty.across_tasks: "For claims generalized across a task family, task is the upper-level
    unit. Use task-level bootstrap or a preregistered hierarchical model; samples within one task are not
    independent replications of the general phenomenon."

    Four tasks of 16 answers: S recurs on every answer of two tasks and on none of the other two, C never. Pooled
    over generations (64 "independent" answers a rate of 0.5) the interval of S - C is about 0.5 +- 0.12; with tasks
    as the upper-level unit, drawing the two recurring tasks 0, 1, ..., 4 times out of 4 is the whole story, and the
    interval reaches from 0 to 1.
    """
    filled, key = _e4_sheet(tmp_path, {"t1": True, "t2": True, "t3": False, "t4": False})
    score = score_recurrence(filled, key, "S", "C", BootstrapSettings(seed=3, n_resamples=2000))
    diff = score["difference"]
    assert diff["value"] == 0.5
    assert diff["ci"] == [0.0, 1.0]
    assert score["tasks"] == 4 and score["bootstrap"]["unit"].startswith("tasks resampled")


def test_e4_interval_within_homogeneous_tasks_is_the_spread_of_the_tasks(tmp_path: Path) -> None:
    """Same spec sentence: where every task says the same, resampling tasks adds nothing, and the interval is the
    within-task one (here every answer of S recurs and none of C: no spread at either level)."""
    filled, key = _e4_sheet(tmp_path, {"t1": True, "t2": True, "t3": True})
    score = score_recurrence(filled, key, "S", "C", BootstrapSettings(seed=3, n_resamples=500))
    assert score["difference"]["value"] == 1.0 and score["difference"]["ci"] == [1.0, 1.0]
    assert score["ratio"]["value"] is None and "NA" in score["ratio"]["note"]



def _refused_codebook(folder: Path, change: Callable[[Codebook], dict[str, Any]]) -> InputError:
    """The confirmatory example (test_plan_confirmatory's) with its codebook re-frozen under ``change``; the
    refusal, checked to be at the plan's codebook line."""
    plan = confirmatory(folder)
    path = folder / "codebook.json"
    book = Codebook.model_validate_json(path.read_text())
    draft = book.model_copy(update={"content_hash": None, "frozen_at": None, **change(book)})
    path.write_text(freeze(draft).model_dump_json(by_alias=True))
    with pytest.raises(InputError) as info:
        check_confirmatory(load_plan(plan))
    assert info.value.line == line_of(plan.read_text(), "codebook = ")
    return info.value


def test_a_confirmatory_plan_refuses_a_codebook_clustered_with_loose(tmp_path: Path) -> None:
    """T_GPT v0.8.1, semantic_identity.development_phase: "using bidirectional entailment as the primary
    semantic-equivalence criterion". ``--loose`` accepts entailment one way and neutral the other."""
    err = _refused_codebook(tmp_path, lambda book: {"rule": book.rule.model_copy(update={"strict": False})})
    assert "not strict bidirectional entailment" in str(err) and "--loose" in str(err)


def test_a_confirmatory_plan_refuses_a_codebook_without_the_embedding_sensitivity_run(tmp_path: Path) -> None:
    """T_GPT v0.8.1, semantic_identity.development_phase: "... embedding clustering as sensitivity analysis"."""
    err = _refused_codebook(tmp_path, lambda book: {"embedding_sensitivity": None})
    assert "no embedding sensitivity run" in str(err)


def test_e3s_aggregate_coverage_file_is_sealed_into_the_lock_and_refused_if_it_changes(tmp_path: Path) -> None:
    """T_GPT v0.8.1, semantic_identity.confirmation_phase: "Confirmation samples map to frozen IDs or UNMAPPED;
    primary metrics do not create new cluster identities post hoc", and split_merge_rule: what is discovered after
    the freeze "cannot alter primary confirmatory scores". E3's primary (AGG_COVERAGE) rests on the file saying which
    frozen clusters each aggregate covers: written after the run, so sealed into the lock when first scored."""
    example = Path(__file__).resolve().parents[1] / "examples" / "tgpt"
    for name in ("plan.toml", "codebook.json", "relevance.jsonl", "tasks.jsonl"):
        shutil.copy(example / name, tmp_path / name)
    plan = tmp_path / "plan.toml"
    locked_hash = lock_plan(plan).plan_hash
    locked = check_lock(plan, run_has_generations=True)
    loaded = SimpleNamespace(resolve=lambda written: tmp_path / written, path=plan)
    aggregates = write_aggregates(tmp_path)
    first = topology_inputs(loaded, params(), GROUPED, RELEVANCE, (), locked)  # type: ignore[arg-type]
    lock = read_lock(plan)
    assert lock is not None and lock.sealed == {"aggregates.jsonl": first.sha256} and lock.plan_hash == locked_hash
    again = topology_inputs(loaded, params(), GROUPED, RELEVANCE, (), check_lock(plan, True))  # type: ignore[arg-type]
    assert again.sha256 == first.sha256  # the same bytes score again
    aggregates.write_text(aggregates.read_text().replace('"clusters": ["c1"]', '"clusters": ["c1", "c2"]', 1))
    with pytest.raises(LockRefusedError) as refused:
        topology_inputs(loaded, params(), GROUPED, RELEVANCE, (), check_lock(plan, True))  # type: ignore[arg-type]
    message = str(refused.value)
    assert str(aggregates) in message and "changed after the run first scored it" in message
    assert f"Put back the file that was scored (sha256 {first.sha256})" in message
    assert user_fault(refused.value) == message  # the CLI prints it and exits 2


@pytest.mark.parametrize(("control", "candidate"), [("vote", "merge"), ("merge", "vote")])
def test_e3_reports_the_ratio_of_the_aggregates_with_its_interval(tmp_path: Path, control: str, candidate: str) -> None:
    """T_GPT v0.8.1, uncertainty.effect_sizes: "Always report absolute difference and ratio where defined, with
    confidence intervals; p-values alone are insufficient." E3's primary compares two aggregates' AGG_COVERAGE."""
    from test_semantic_topology import score

    write_aggregates(tmp_path)
    block, _, metrics = score(tmp_path, params(control=control, candidate=candidate))
    assert block is not None
    across = metrics["across_tasks"]
    primary = block["primary"]["ratio"]
    coverage = across["AGG_COVERAGE"]
    assert primary["value"] == pytest.approx(coverage[candidate]["value"] / coverage[control]["value"])
    low, high = primary["ci"]
    assert 0 < low < primary["value"] < high
    secondary, recall = block["secondary"][0]["ratio"], across["MINORITY_RECALL"]
    if recall[control]["value"] == 0:  # "where defined": vote keeps no minority cluster
        assert secondary["value"] is None and secondary["note"].startswith("NA")
    else:
        assert secondary["value"] == pytest.approx(recall[candidate]["value"] / recall[control]["value"])
    label = "vote-merge"  # the table's orientation (later name - earlier name): its ratio is vote / merge
    table = metrics["effects"]["across_tasks"]["AGG_COVERAGE"][label]["ratio"]
    assert table["value"] == pytest.approx(across["AGG_COVERAGE"]["vote"]["value"]
                                           / across["AGG_COVERAGE"]["merge"]["value"])
