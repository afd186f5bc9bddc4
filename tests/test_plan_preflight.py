"""A plan's pre-flight: the pairwise floor decides, the tiebreak is declared and checked, and the leak audit is on
the lock (refused on a leak, exit 1, or a failed control, exit 4; the lock carries its hash and gate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.errors import InputError
from forgegate.plan import LockRefusedError, check_lock, lock_path, lock_plan, parse_plan_text
from forgegate.plan.inputs import sha256_file
from tests.audit_helpers import build_leak_fixture
from tests.plan_helpers import PLAN, audit_json, line_of, write_plan_folder

SHIP_ROLE = 'adapter = "models/ckpt1"\nrole = "ship_candidate"'
SHIP_PLAN = PLAN.replace('adapter = "models/ckpt1"\nrole = "candidate"', SHIP_ROLE)
TWO_CANDIDATES = SHIP_PLAN.replace('''[instruments.voice]''', '''[[arms]]
name = "ckpt2"
backend = "transformers"
model = "models/base"
role = "tied_candidate"

[instruments.voice]''') + '''
[[comparisons]]
control = "base"
candidate = "ckpt2"
primary = "voice.delta_gap"
'''
TIEBREAK = '''
[tiebreak]
axes = ["memorization", "seed_spread"]
min_variance_ratio = 2.0
prior = "ckpt1"
'''


def load(text: str) -> object:
    return parse_plan_text(Path("plan.toml"), text).plan


def refused(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_plan_text(Path("plan.toml"), text)
    return info.value


def test_the_all_arms_floor_cannot_decide_and_is_refused_at_its_line() -> None:
    text = PLAN.replace("segment_words = 100\n", 'segment_words = 100\nfloor = "all-arms"\n')
    err = refused(text)
    assert err.line == line_of(text, 'floor = "all-arms"')
    assert "pairwise floor is the verdict" in str(err) and "sensitivity line" in str(err)
    load(PLAN.replace("segment_words = 100\n", 'segment_words = 100\nfloor = "pairwise"\n'))


def test_a_tiebreak_is_declared_in_order_with_its_prior() -> None:
    plan = parse_plan_text(Path("plan.toml"), TWO_CANDIDATES + TIEBREAK).plan
    assert plan.tiebreak is not None
    assert plan.tiebreak.axes == ("memorization", "seed_spread") and plan.tiebreak.prior == "ckpt1"
    assert plan.tiebreak.min_variance_ratio == 2.0


@pytest.mark.parametrize(("extra", "needle", "message"), [
    ('[tiebreak]\naxes = ["memorization"]\nprior = "base"\n', 'prior = "base"', "not the ship candidate or a tied"),
    ('[tiebreak]\naxes = ["loss"]\n', 'axes = ["loss"]', "memorization"),
    ('[tiebreak]\naxes = []\n', "axes = []", "at least 1"),
    ('[tiebreak]\naxes = ["seed_spread", "seed_spread"]\n', "[tiebreak]", "named twice"),
    ('[tiebreak]\naxes = ["memorization"]\nmin_variance_ratio = 0.5\n', "min_variance_ratio", "greater than 1"),
    ('[tiebreak]\naxes = ["seed_spread"]\n', "[tiebreak]", "needs 'min_variance_ratio'"),
    ('[tiebreak]\naxes = ["memorization"]\nsplits = 1\n', "splits = 1", "splits"),
])
def test_a_bad_tiebreak_is_refused_at_its_line(extra: str, needle: str, message: str) -> None:
    text = TWO_CANDIDATES + "\n" + extra
    err = refused(text)
    assert message in str(err), str(err)
    assert err.line == line_of(text, needle), str(err)


def test_the_spec_roles_go_with_a_tiebreak_one_ship_candidate_and_a_tied_one() -> None:
    err = refused(TWO_CANDIDATES)  # the roles without a [tiebreak]
    assert "goes with a [tiebreak]" in str(err) and err.line == line_of(TWO_CANDIDATES, 'role = "ship_candidate"')
    text = TWO_CANDIDATES.replace('role = "tied_candidate"', 'role = "ship_candidate"') + TIEBREAK
    err = refused(text)
    assert "exactly one arm with role 'ship_candidate', found 2" in str(err)
    text = TWO_CANDIDATES.replace('role = "tied_candidate"', 'role = "candidate"') + TIEBREAK
    assert "name it 'ship_candidate' or 'tied_candidate'" in str(refused(text))
    assert "at least one arm with role 'tied_candidate'" in str(refused(
        TWO_CANDIDATES.replace('role = "tied_candidate"', 'role = "control"').replace(
            '[[comparisons]]\ncontrol = "base"\ncandidate = "ckpt2"\nprimary = "voice.delta_gap"\n', "")
        + TIEBREAK))


def test_a_tiebreak_needs_the_ship_roles_and_its_axes_instruments() -> None:
    assert "exactly one arm with role 'ship_candidate', found 0" in str(
        refused(PLAN + TIEBREAK.replace('prior = "ckpt1"\n', "")))
    no_voice = TWO_CANDIDATES.replace('primary = "voice.delta_gap"', 'primary = "damage.ran_on"')
    no_voice = no_voice.replace("[instruments.voice]\nreference = \"reference.txt\"\nsegment_words = 100\n", "")
    no_voice = no_voice.replace('author = "Austen"\n', "")
    text = no_voice + TIEBREAK
    err = refused(text)
    assert "reads the voice instrument" in str(err) and err.line == line_of(text, "axes =")


# --- the leak audit on the lock --------------------------------------------------------------------------------

def plan_with_audit(folder: Path, payload: dict[str, object] | str) -> Path:
    plan = write_plan_folder(folder, PLAN + '\n[leak_audit]\nresult = "leak.json"\n')
    (folder / "leak.json").write_text(payload if isinstance(payload, str) else json.dumps(payload))
    return plan


def test_a_clean_audit_locks_and_the_lock_carries_its_hash_and_gate(tmp_path: Path) -> None:
    plan = plan_with_audit(tmp_path, audit_json("PASS", "CLEAN"))
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    saved = json.loads(lock_path(plan).read_text())
    assert {k: saved["leak_audit"][k] for k in ("sha256", "gate", "finding", "origin")} == {
        "sha256": sha256_file(tmp_path / "leak.json"), "gate": "PASS", "finding": "CLEAN", "origin": "leak.json"}
    assert "controls green: on the record" in saved["leak_audit"]["detail"]
    assert "leak audit (leak.json)" in result.output and "gate PASS" in result.output
    check = CliRunner().invoke(app, ["plan", "check", str(plan), "--store", str(tmp_path / "runs")])
    assert check.exit_code == 0 and "leak audit on the lock (leak.json): gate PASS, finding CLEAN" in check.output
    assert check_lock(plan, run_has_generations=False).lock.leak_audit == saved["leak_audit"]
    # the result file is an input: a changed audit changes the plan's hash, so the lock no longer holds
    (tmp_path / "leak.json").write_text(json.dumps(audit_json("PASS", "CLEAN", planted=(5, 6))))
    with pytest.raises(LockRefusedError, match="input leak.json: sha256"):
        check_lock(plan, run_has_generations=False)


@pytest.mark.parametrize(("gate", "finding", "leaks", "planted", "code", "words"), [
    ("FAIL", "LEAK", 70, (6, 6), 1, "finding LEAK"), ("INVALID", "CLEAN", 0, (5, 6), 4, "a control failed"),
])
def test_a_leak_or_a_failed_control_refuses_the_lock(tmp_path: Path, gate: str, finding: str, leaks: int,
                                                      planted: tuple[int, int], code: int, words: str) -> None:
    plan = plan_with_audit(tmp_path, audit_json(gate, finding, train_leaks=leaks, planted=planted))
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert result.exit_code == code, result.output
    assert "NOT LOCKED" in result.output and words in result.output
    assert not lock_path(plan).exists()


def test_a_truncated_audit_result_names_the_missing_field(tmp_path: Path) -> None:
    payload = audit_json("PASS", "CLEAN")
    del payload["controls"]
    plan = plan_with_audit(tmp_path, payload)
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(result.exception, InputError) and "field 'controls'" in str(result.exception)


def plan_with_clean_splits(folder: Path, splits: str, payload: dict[str, object]) -> Path:
    plan = write_plan_folder(folder, PLAN + f'\n[leak_audit]\nresult = "leak.json"\nclean_splits = {splits}\n')
    (folder / "leak.json").write_text(json.dumps(payload))
    return plan


def test_the_spec_train_leak_beside_a_clean_val_split_locks_only_when_the_plan_says_val_must_be_clean(
        tmp_path: Path) -> None:
    spec = audit_json("FAIL", "LEAK", train_leaks=70)  # lv-hemingway v2 § 6: train 70 of 7,094, val 0 of 200
    refused_plan = plan_with_audit(tmp_path / "any", spec)
    result = CliRunner().invoke(app, ["plan", "lock", str(refused_plan), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 1 and "train: 70 leaking halves in 7094 pairs" in result.output
    plan = plan_with_clean_splits(tmp_path / "val", '["val"]', spec)
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    record = json.loads(lock_path(plan).read_text())["leak_audit"]
    assert record["gate"] == "FAIL" and record["finding"] == "LEAK"  # the audit's own word, on the record
    assert "val clean" in record["detail"] and "train: 70 leaking halves" in record["detail"]
    dirty = plan_with_clean_splits(tmp_path / "train", '["val", "train"]', spec)
    result = CliRunner().invoke(app, ["plan", "lock", str(dirty), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 1 and "leak in train, which must be clean" in " ".join(result.output.split())
    unseen = plan_with_clean_splits(tmp_path / "test", '["test"]', spec)
    result = CliRunner().invoke(app, ["plan", "lock", str(unseen), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 3 and "did not see them" in " ".join(result.output.split())
    blind = plan_with_clean_splits(tmp_path / "blind", '["val"]', audit_json("INVALID", "LEAK", train_leaks=70,
                                                                                     planted=(5, 6)))
    result = CliRunner().invoke(app, ["plan", "lock", str(blind), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 4 and not lock_path(blind).exists()


def test_a_plan_naming_an_audit_cannot_be_locked_around_it(tmp_path: Path) -> None:
    plan = plan_with_audit(tmp_path, audit_json("FAIL", "LEAK", train_leaks=70))
    with pytest.raises(LockRefusedError, match="puts the audit on the record"):
        lock_plan(plan)  # the library call without the audit record


def test_a_file_that_is_not_an_audit_result_is_refused_at_the_plan_line(tmp_path: Path) -> None:
    plan = plan_with_audit(tmp_path, {"kind": "voice"})
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(result.exception, InputError)  # exit 2 through the CLI's failure handler
    assert result.exception.line == line_of(plan.read_text(), "result = ")
    assert "not a forgegate audit leak --json result (its kind is 'voice'" in str(result.exception)
    assert not lock_path(plan).exists()


def test_plan_lock_runs_the_audit_from_its_inputs_and_refuses_the_leak_it_finds(tmp_path: Path) -> None:
    fixture = build_leak_fixture(tmp_path / "leak")
    text = PLAN + (f'\n[leak_audit]\nsource = "{fixture["source"]}"\nrenamed = ["{fixture["renamed"]}"]\n'
                   f'pairs = ["{fixture["pairs"]}"]\n')
    plan = write_plan_folder(tmp_path / "p", text)
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert result.exit_code == 1, result.output  # the fixture plants leaks in its train pairs
    assert "leak audit (ran at lock): FAIL" in result.output and not lock_path(plan).exists()


def test_a_leak_audit_names_a_result_or_its_inputs_not_both(tmp_path: Path) -> None:
    text = PLAN + '\n[leak_audit]\nresult = "leak.json"\nsource = "src"\n'
    err = refused(text)
    assert "not both" in str(err) and err.line == line_of(text, "[leak_audit]")
    assert "'source', 'renamed' and 'pairs'" in str(refused(PLAN + '\n[leak_audit]\nsource = "src"\n'))


def test_the_hemingway_preset_is_the_specs_plan_roles_tiebreak_and_leak_audit_active() -> None:
    from forgegate.plan import PRESETS

    plan = parse_plan_text(Path("h.toml"), PRESETS["hemingway"]).plan  # as written: no line to uncomment
    assert {a.name: a.role for a in plan.arms} == {"base-unadapted": "control", "ckpt1750": "ship_candidate",
                                                   "ckpt850": "tied_candidate"}
    assert plan.tiebreak is not None and plan.tiebreak.prior == "ckpt850"
    assert plan.tiebreak.axes == ("memorization", "seed_spread") and plan.tiebreak.min_variance_ratio == 2.0
    assert plan.leak_audit is not None and plan.leak_audit.clean_splits == ("val",)
    assert plan.leak_audit.pairs and plan.leak_audit.source is not None
    assert "# [tiebreak]" not in PRESETS["hemingway"] and "# [leak_audit]" not in PRESETS["hemingway"]


def test_a_lock_without_the_audit_record_is_refused_by_the_run_and_by_check(tmp_path: Path) -> None:
    plan = plan_with_audit(tmp_path, audit_json("PASS", "CLEAN"))
    assert CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")]).exit_code == 0
    saved = json.loads(lock_path(plan).read_text())
    del saved["leak_audit"]  # a lock written by hand, or before the plan named its audit
    lock_path(plan).write_text(json.dumps(saved))
    with pytest.raises(LockRefusedError, match="carries no audit record"):
        check_lock(plan, run_has_generations=False)
    check = CliRunner().invoke(app, ["plan", "check", str(plan), "--store", str(tmp_path / "runs")])
    assert check.exit_code == 2 and "NO LEAK AUDIT on the lock" in check.output


@pytest.mark.parametrize(("gate", "finding", "leaks", "planted"), [
    ("PASS", "CLEAN", 70, (6, 6)),    # the forgery: the words edited, the train leak still in its splits
    ("PASS", "LEAK", 70, (6, 6)),     # the word edited, the finding left
    ("PASS", "CLEAN", 0, (5, 6)),     # a failed control under a PASS
    ("FAIL", "CLEAN", 0, (6, 6)),     # a clean audit made to refuse is not trusted either
])
def test_a_result_whose_words_disagree_with_its_own_splits_and_controls_does_not_lock(
        tmp_path: Path, gate: str, finding: str, leaks: int, planted: tuple[int, int]) -> None:
    plan = plan_with_audit(tmp_path, audit_json(gate, finding, train_leaks=leaks, planted=planted))
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(result.exception, InputError) and result.exit_code != 0
    assert result.exception.line == line_of(plan.read_text(), "result = ")
    assert f"says gate {gate}, finding {finding}, but its own splits and controls give" in str(result.exception)
    assert not lock_path(plan).exists()
