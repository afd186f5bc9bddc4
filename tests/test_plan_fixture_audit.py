"""No gate without the leak audit where the spec says so (issue 36, lv-hemingway v2 § 6): a fixture built from a
pairs file locks only with a leak audit of that same file (by sha256) that shows the fixture's split clean; and
``forgegate voice --floor all-arms`` is refused as plans refuse it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from eval_helpers import run_cli_in_process
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.plan import lock_path
from tests.plan_helpers import PLAN, audit_json, line_of, write_plan_folder

AUDIT = '\n[leak_audit]\nresult = "leak.json"\nclean_splits = ["val"]\n'


def _pairs(path: Path) -> Path:
    rows = [{"split": "val", "instruction": f"Write beat {i}.", "response": "w " * 20, "work": f"work{i % 2}"}
            for i in range(4)]
    rows += [{"split": "train", "instruction": "Train beat.", "response": "w " * 20, "work": "work0"}] * 3
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def built_plan(folder: Path, audit: str = AUDIT) -> tuple[Path, Path]:
    """A plan whose fixture ``forgegate fixture build`` drew from a pairs file; returns (plan, pairs)."""
    plan = write_plan_folder(folder, PLAN + audit)
    pairs = _pairs(folder / "pairs-val.jsonl")
    built = CliRunner().invoke(app, ["fixture", "build", "--pairs", str(pairs), "--split", "val", "--n", "3",
                                     "--band", "10-30", "--seed", "4919", "--out", str(folder / "fixture.jsonl")])
    assert built.exit_code == 0, built.output
    return plan, pairs


def audit_of(pairs: Path | None, val_leaks: int = 0) -> dict[str, object]:
    """A leak audit result; ``pairs``: the file it records having audited (None: a result that records none)."""
    payload = audit_json("FAIL", "LEAK", train_leaks=70)  # what audit leak writes for the spec's 70 train leaks
    if val_leaks:
        payload["splits"]["val"]["leaking_instruction"] = val_leaks  # type: ignore[index]
    if pairs is not None:
        payload["pairs_sha256"] = {pairs.name: hashlib.sha256(pairs.read_bytes()).hexdigest()}
    return payload


def lock(plan: Path, tmp_path: Path) -> tuple[int, str]:
    result = run_cli_in_process("plan", "lock", str(plan), "--store", str(tmp_path / "runs"))
    return result.returncode, " ".join((result.stdout + result.stderr).split())


def test_the_fixture_builder_records_the_pairs_file_and_split_beside_the_fixture(tmp_path: Path) -> None:
    _, pairs = built_plan(tmp_path)
    record = json.loads((tmp_path / "fixture.jsonl.build.json").read_text())
    assert record["pairs_sha256"] == hashlib.sha256(pairs.read_bytes()).hexdigest() and record["split"] == "val"
    assert record["fixture_sha256"] == hashlib.sha256((tmp_path / "fixture.jsonl").read_bytes()).hexdigest()


def test_a_fixture_drawn_from_pairs_does_not_lock_without_a_leak_audit(tmp_path: Path) -> None:
    plan, _ = built_plan(tmp_path, audit="")
    code, out = lock(plan, tmp_path)
    assert code == 2 and "no gate runs without the leak audit of that file" in out and "pairs-val.jsonl" in out
    assert not lock_path(plan).exists()


def test_an_audit_of_the_same_pairs_file_with_the_split_clean_locks(tmp_path: Path) -> None:
    plan, pairs = built_plan(tmp_path)
    (tmp_path / "leak.json").write_text(json.dumps(audit_of(pairs)))
    code, out = lock(plan, tmp_path)
    assert code == 0, out
    assert lock_path(plan).exists()  # the train leak stays on the record, the fixture's val split is clean


def test_an_audit_of_another_pairs_file_is_refused_at_the_leak_audit_line(tmp_path: Path) -> None:
    plan, _ = built_plan(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text('{"split": "val", "instruction": "x", "response": "y", "work": "w"}\n')
    (tmp_path / "leak.json").write_text(json.dumps(audit_of(other)))
    code, out = lock(plan, tmp_path)
    assert code == 2 and "did not audit the fixture's pairs file" in out
    assert f"plan.toml:{line_of(PLAN + AUDIT, '[leak_audit]')}" in out and not lock_path(plan).exists()


def test_an_audit_that_records_no_pairs_digest_is_refused(tmp_path: Path) -> None:
    plan, _ = built_plan(tmp_path)
    (tmp_path / "leak.json").write_text(json.dumps(audit_of(None)))
    code, out = lock(plan, tmp_path)
    assert code == 2 and "records no sha256 of the pairs it audited" in out


def test_a_leak_in_the_fixtures_split_refuses_the_lock_as_a_finding(tmp_path: Path) -> None:
    plan, pairs = built_plan(tmp_path, audit='\n[leak_audit]\nresult = "leak.json"\nclean_splits = ["train"]\n')
    (tmp_path / "leak.json").write_text(json.dumps(audit_of(pairs)))
    code, out = lock(plan, tmp_path)
    assert code == 2 and "clean_splits does not name 'val'" in out
    plan, pairs = built_plan(tmp_path / "b", audit='\n[leak_audit]\nresult = "leak.json"\n')
    payload = audit_of(pairs, val_leaks=2)
    payload["splits"]["train"]["leaking_instruction"] = 0  # type: ignore[index]
    (tmp_path / "b" / "leak.json").write_text(json.dumps(payload))
    code, out = lock(plan, tmp_path / "b")
    # a genuine audit of a leaking val split says FAIL itself (issue 38: its word is recomputed from its splits),
    # so the lock is refused as that finding before the fixture's own split is looked at
    assert code == 1 and "NOT LOCKED" in out and "leak audit" in out
    assert not lock_path(plan).exists()


def test_a_fixture_edited_after_its_build_is_not_the_one_the_record_describes(tmp_path: Path) -> None:
    plan, pairs = built_plan(tmp_path)
    (tmp_path / "leak.json").write_text(json.dumps(audit_of(pairs)))
    with (tmp_path / "fixture.jsonl").open("a") as handle:
        handle.write('{"id": "extra", "prompt": "Write a beat of my own."}\n')
    code, out = lock(plan, tmp_path)
    assert code == 2 and "changed after forgegate fixture build" in out


def test_voice_refuses_the_all_arms_floor_as_plans_refuse_it(tmp_path: Path) -> None:
    gens = tmp_path / "gens.jsonl"
    gens.write_text("".join(json.dumps({"arm": arm, "seed": s, "text": "It was a fine day. " * 30}) + "\n"
                            for arm in ("base", "cand") for s in (1, 2)))
    (tmp_path / "ref.txt").write_text("It is a truth universally acknowledged. " * 400)
    result = run_cli_in_process("voice", "--author", "Austen", "--reference", str(tmp_path / "ref.txt"),
                                "--generations", str(gens), "--control", "base", "--candidate", "cand",
                                "--floor", "all-arms")
    out = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 2 and "the pairwise floor is the verdict" in out and "sensitivity line" in out


def test_plan_lock_runs_the_audit_on_the_fixtures_own_pairs_and_locks_on_a_clean_val_split(tmp_path: Path) -> None:
    from forgegate.fixture.provenance import write_provenance
    from tests.audit_helpers import build_leak_fixture

    leak = build_leak_fixture(tmp_path / "leak")  # train leaks planted, val clean
    audit = (f'\n[leak_audit]\nsource = "{leak["source"]}"\nrenamed = ["{leak["renamed"]}"]\n'
             f'pairs = ["{leak["pairs"]}"]\nclean_splits = ["val"]\n')
    plan = write_plan_folder(tmp_path / "p", PLAN + audit)
    write_provenance(tmp_path / "p" / "fixture.jsonl", leak["pairs"], "val")
    code, out = lock(plan, tmp_path)
    assert code == 0, out
    other = tmp_path / "other.jsonl"
    other.write_text(leak["pairs"].read_text() + '{"split": "val", "instruction": "x", "response": "y"}\n')
    write_provenance(tmp_path / "p" / "fixture.jsonl", other, "val")  # drawn from a file the audit never saw
    code, out = lock(plan, tmp_path / "again")
    assert code == 2 and "did not audit the fixture's pairs file" in out
