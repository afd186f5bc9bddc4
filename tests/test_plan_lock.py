"""The plan lock: refused unlocked, re-lockable before the first generation, frozen after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.core.records import Completion, GenerationRequest
from forgegate.pipeline.plan.store import plan_run_state
from forgegate.plan import RULE_DOES_NOT_MOVE, LockRefusedError, check_lock, lock_path, lock_plan, plan_hash
from forgegate.store import RunStore
from tests.plan_helpers import write_plan_folder


def test_unlocked_plan_is_refused(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    with pytest.raises(LockRefusedError, match="not locked"):
        check_lock(plan, run_has_generations=False)


def test_locked_plan_passes_and_exposes_its_hash(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    written = lock_plan(plan)
    locked = check_lock(plan, run_has_generations=True)
    assert locked.plan_hash == written.plan_hash == plan_hash(plan)
    assert len(locked.plan_hash) == 64
    saved = json.loads(lock_path(plan).read_text())
    assert saved["plan_hash"] == written.plan_hash and saved["text"] == plan.read_text()


def test_amending_after_the_first_generation_is_refused_with_the_diff(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    lock_plan(plan)
    plan.write_text(plan.read_text().replace("band = [5, 60]", "band = [5, 80]"))
    with pytest.raises(LockRefusedError) as info:
        check_lock(plan, run_has_generations=True)
    message = str(info.value)
    assert RULE_DOES_NOT_MOVE in message
    assert "-band = [5, 60]" in message and "+band = [5, 80]" in message
    with pytest.raises(LockRefusedError, match="the rule does not move"):
        lock_plan(plan, run_has_generations=True)


def test_before_any_generation_a_changed_plan_may_be_relocked(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    first = lock_plan(plan)
    plan.write_text(plan.read_text().replace("seeds = [1, 2]", "seeds = [1, 2, 3]"))
    with pytest.raises(LockRefusedError, match="re-lock"):
        check_lock(plan, run_has_generations=False)
    second = lock_plan(plan, run_has_generations=False)
    assert second.plan_hash != first.plan_hash
    assert check_lock(plan, run_has_generations=True).plan_hash == second.plan_hash


def test_comments_and_spacing_do_not_change_the_hash(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    before = lock_plan(plan).plan_hash
    plan.write_text("# a note added later\n" + plan.read_text().replace("seeds = [1, 2]", "seeds = [ 1, 2 ]"))
    assert check_lock(plan, run_has_generations=True).plan_hash == before


def test_a_changed_input_file_changes_the_hash_and_is_named(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path)
    lock_plan(plan)
    with (tmp_path / "fixture.jsonl").open("a") as handle:
        handle.write(json.dumps({"id": "b9", "prompt": "A late extra beat."}) + "\n")
    with pytest.raises(LockRefusedError) as info:
        check_lock(plan, run_has_generations=True)
    assert "input fixture.jsonl: sha256" in str(info.value)


def _store_one_generation(store_dir: Path, plan: Path) -> None:
    state = plan_run_state(plan, store_dir)
    with RunStore.open(state.store_path) as store:
        request = GenerationRequest(prompt="p", max_tokens=4)
        store.record(request_key="base/b0/1", arm="base", item_id="b0", seed=1, request=request,
                     completion=Completion("x", 1, "tokenizer", "stop", 0.1), error=None, attempts=1)


def test_cli_new_lock_check_and_refusal_after_generation(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "new" / "gloss.toml"
    result = runner.invoke(app, ["plan", "new", "--preset", "gloss", "--out", str(out)])
    assert result.exit_code == 0 and out.exists()
    again = runner.invoke(app, ["plan", "new", "--preset", "gloss", "--out", str(out)])
    assert again.exit_code != 0

    plan = write_plan_folder(tmp_path / "p")
    store_dir = tmp_path / "runs"
    check = runner.invoke(app, ["plan", "check", str(plan), "--store", str(store_dir)])
    assert check.exit_code == 2 and "NOT LOCKED" in check.output  # the user must lock it: not a gate word
    locked = runner.invoke(app, ["plan", "lock", str(plan), "--store", str(store_dir)])
    assert locked.exit_code == 0, locked.output
    assert f"plan_hash {plan_hash(plan)}" in locked.output
    check = runner.invoke(app, ["plan", "check", str(plan), "--store", str(store_dir)])
    assert check.exit_code == 0 and "0 generations" in check.output

    _store_one_generation(store_dir, plan)
    plan.write_text(plan.read_text().replace("max_margin = 0", "max_margin = 5"))
    relock = runner.invoke(app, ["plan", "lock", str(plan), "--store", str(store_dir)])
    assert relock.exit_code != 0
    assert isinstance(relock.exception, LockRefusedError)
    assert RULE_DOES_NOT_MOVE in str(relock.exception) and "+max_margin = 5" in str(relock.exception)


def test_the_committed_example_locks_read_back_and_write_byte_for_byte() -> None:
    """The lock is one model, read and written through it: the examples' locks (written before it was a model)
    come back as the same bytes."""
    from forgegate.plan.lock import read_lock

    repo = Path(__file__).resolve().parents[1]
    for plan in ("examples/hemingway-style/plan.toml", "examples/tgpt/plan.toml", "examples/tgpt/develop.toml"):
        lock = read_lock(repo / plan)
        assert lock is not None
        written = json.dumps(lock.to_file(), ensure_ascii=False, indent=2) + "\n"
        assert written == (repo / (plan + ".lock")).read_text(encoding="utf-8")


def test_a_lock_with_a_field_of_the_wrong_type_is_refused_naming_it(tmp_path: Path) -> None:
    from forgegate.errors import InputError
    from forgegate.plan.lock import LOCK_FORMAT, read_lock

    plan = tmp_path / "plan.toml"
    (tmp_path / "plan.toml.lock").write_text(json.dumps(
        {"format": LOCK_FORMAT, "plan_hash": 7, "plan_file": "plan.toml", "locked_at": "now",
         "forgegate_version": "0", "inputs": {}, "text": ""}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_lock(plan)
    assert caught.value.field == "plan_hash" and "plan.toml.lock" in str(caught.value)


def test_the_run_reads_each_input_as_the_lock_check_hashed_it(tmp_path: Path) -> None:
    """Issue 34, item 6 (read once): the lock check reads every input once; a file rewritten after that check
    (while the run generates) is not read again, so the plan hash and the texts scored are of the same bytes."""
    import hashlib

    from forgegate.plan import check_lock

    plan = write_plan_folder(tmp_path / "p")
    lock_plan(plan)
    locked = check_lock(plan, run_has_generations=False)
    original = (tmp_path / "p" / "reference.txt").read_bytes()
    (tmp_path / "p" / "reference.txt").write_text("Changed after the lock check. " * 50)
    assert locked.input_bytes("reference.txt") == original
    assert hashlib.sha256(locked.input_bytes("reference.txt")).hexdigest() == locked.lock.inputs["reference.txt"]
    assert set(locked.contents) == set(locked.lock.inputs)  # every hashed input is kept, nothing else
