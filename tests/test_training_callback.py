"""``ForgegateCallback`` on real LoRA runs of SmolLM2 (examples/training/train_lora.py, run as a user runs it).

Two runs (the plain one once per session, the loop one once for this module):

* a plain run (A Study in Scarlet pairs, 3 steps, a checkpoint, an eval and a probe at each: three eval points,
  each probe the 11-item mechanics probe of tests/training_run.py, the bundled probe's mechanics at a third of its cost,
  the fewest ``plan from-training`` measures a jitter on): the callback probes the untrained model and every
  checkpoint, writes one record each, and its numbers reach the trainer's own log. It is trained to step 2 and
  then resumed to step 3 (``--resume``, as a user resumes), once for the session (tests/conftest.py,
  tests/training_run.py): the resume test reads that same run, and test_watch.py probes its checkpoints from
  disk and compares. A probe of SmolLM2 costs about 20 s of CPU: the probes are what costs here, so no run is
  trained twice;
* two runs watched for loops (``--stop-on IDENTITY_LOOP --stop-on RUNAWAY_LOOP``, patience 1), issue 37: a loop
  run (ten pairs of ``⊙ α? → αα. ⊙ αα? → ααα.``, lr 2e-3) that learns to loop, which the callback stops once a
  probe shows a loop mode beyond chance against the untrained baseline (Fisher's exact test), saying the counts
  and the p-value; and a healthy run (the Scarlet pairs) that does not learn to loop, which the same rule lets
  run to its last step although SmolLM2 loops on about half the probe before training.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from slow import starts_something
from training_run import FIRST_STEPS, MECHANICS_PROBE_ITEMS, PLAIN_STEPS, PlainRun, run_training

from forgegate.battery import bundled_probe_battery_path, load_battery
from forgegate.core.modes import FailureMode
from forgegate.core.version import __version__
from forgegate.errors import UsageError
from forgegate.metrics.checkpoints import checkpoint_ties, read_trainer_state
from forgegate.training.records import read_probes
from forgegate.training.stopping import StopWatch, shown_modes, stop_modes

pytestmark = pytest.mark.slow
pytest.importorskip("peft")
pytest.importorskip("gguf")

PROBE_ITEMS = len(load_battery(bundled_probe_battery_path()).items)
WATCHED = ("--stop-on", "IDENTITY_LOOP", "--stop-on", "RUNAWAY_LOOP")
HEALTHY_STEPS = 10
LAST = f"checkpoint-{PLAIN_STEPS}"


@pytest.fixture()
def plain_run(lora_run: PlainRun) -> PlainRun:
    """The suite's plain run (tests/conftest.py; test_watch.py probes its checkpoints from disk)."""
    return lora_run


@pytest.fixture(scope="module")
@starts_something
def loop_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("loop") / "run"
    return out, run_training(out, "--corpus", "loop", "--max-steps", "30", "--save-steps", "5", *WATCHED)


@pytest.fixture(scope="module")
@starts_something
def healthy_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("healthy") / "run"
    return out, run_training(out, "--max-steps", str(HEALTHY_STEPS), "--save-steps", "5", *WATCHED)


def stored_answers(store: str) -> dict[str, str]:
    with sqlite3.connect(store) as db:
        return dict(db.execute("SELECT item_id, response FROM responses"))


def test_plain_run_probes_the_untrained_model_and_every_checkpoint(plain_run: PlainRun) -> None:
    out = plain_run.out
    assert plain_run.first["steps"] == FIRST_STEPS and plain_run.first["stopped"] is None
    assert plain_run.resumed["steps"] == PLAIN_STEPS and plain_run.resumed["stopped"] is None
    probes = read_probes(out)
    assert probes.problems == ()
    assert [(r.step, r.checkpoint) for r in probes.records] == [
        (0, None), (1, "checkpoint-1"), (2, "checkpoint-2"), (3, "checkpoint-3")]
    curve = {p.step: p.eval_loss for p in read_trainer_state(out / LAST / "trainer_state.json")}
    for record in probes.records:
        assert record.source == "callback" and record.forgegate_version == __version__
        assert record.items == MECHANICS_PROBE_ITEMS
        assert record.controls_passed and record.answered == MECHANICS_PROBE_ITEMS
        assert record.eval_loss == (curve[record.step] if record.step else None)
        assert len(stored_answers(record.store)) == MECHANICS_PROBE_ITEMS  # every answer is kept in a run store
        said = (plain_run.first if record.step <= FIRST_STEPS else plain_run.resumed)["stderr"]
        assert f"forgegate probe {record.checkpoint or 'step 0'} (step {record.step})" in said
    assert all(record.stopped_training is None for record in probes.records)


def test_probe_numbers_go_through_the_trainers_own_log(plain_run: PlainRun) -> None:
    out = plain_run.out
    history = json.loads((out / LAST / "trainer_state.json").read_text())["log_history"]
    logged = {entry["step"]: entry for entry in history if "forgegate/loops" in entry}
    by_step = {r.step: r for r in read_probes(out).records}
    # a checkpoint's state is written before that save's probe: checkpoint-2 holds the probes of steps 0 and 1;
    # the run resumed from it, so checkpoint-3 holds those two (step 2's probe was logged after the last state
    # the first process wrote)
    assert sorted(logged) == [0, 1]
    for step, entry in logged.items():
        record = by_step[step]
        assert entry["forgegate/loops"] == record.loops
        assert entry["forgegate/stop_failures"] == record.stop_failures
        assert entry["forgegate/wall_breaks"] == record.wall_breaks
        assert entry["forgegate/accuracy"] == record.accuracy


def test_a_run_that_starts_to_loop_is_stopped_and_says_why(loop_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = loop_run
    records = read_probes(out).records
    baseline, last = records[0], records[-1]
    # the base hard-aborts on at most one identity prompt (GLOSS v2: "same character sequence x3 or more ...
    # IDENTITY_LOOP" in LX-IDENTITY answers, issue 35); what stops the run is the count beyond chance against it
    assert baseline.step == 0 and baseline.mode_counts.get("IDENTITY_LOOP", 0) <= 1
    assert summary["steps"] < 30 and summary["steps"] == last.step  # stopped at the probe, not at max_steps
    assert summary["stopped"] == last.stopped_training and last.stopped_training in summary["stderr"]
    watched = [FailureMode.IDENTITY_LOOP, FailureMode.RUNAWAY_LOOP]
    shown = shown_modes(last, watched, baseline)
    assert shown and all(r.stopped_training is None and not shown_modes(r, watched, baseline) for r in records[1:-1])
    tests = {t.mode: t for t in last.versus_baseline}  # the record keeps the counts, the baseline and the p
    for mode in shown:
        test = tests[mode]
        assert (test.count, test.baseline_count) == (last.mode_counts[mode], baseline.mode_counts.get(mode, 0))
        assert (f"{mode} in {test.count}/{PROBE_ITEMS} items against {test.baseline_count}/{PROBE_ITEMS} before "
                f"training (Fisher's exact test, one-sided, p={test.p_value:.2g} <= ") in last.stopped_training
    looped = stored_answers(last.store)["LX-IDENTITY-01"]  # "⊙ α?": the answer repeats the query symbol
    assert "αα" in looped, looped
    assert (out / f"checkpoint-{last.step}" / "adapter_config.json").is_file()


def test_a_healthy_run_watched_for_loops_runs_to_its_last_step(healthy_run: tuple[Path, dict[str, Any]]) -> None:
    """Issue 37: the base loops on about half the probe; a run that does not learn to loop is not stopped."""
    out, summary = healthy_run
    records = read_probes(out).records
    assert [r.step for r in records] == list(range(0, HEALTHY_STEPS + 1, 5))
    assert summary["steps"] == HEALTHY_STEPS and summary["stopped"] is None
    baseline = records[0]
    assert baseline.mode_counts.get("RUNAWAY_LOOP", 0) > 0  # the base model loops already: the case of the issue
    for r in records[1:]:
        assert r.stopped_training is None and r.controls_passed and r.answered == PROBE_ITEMS
        assert {t.mode for t in r.versus_baseline} == set(r.mode_counts) | set(baseline.mode_counts)
        assert all(t.baseline_count == baseline.mode_counts.get(t.mode, 0) for t in r.versus_baseline)
        assert f"forgegate probe {r.checkpoint} (step {r.step})" in summary["stderr"]
    assert "against before training (Fisher's exact test, one-sided)" in summary["stderr"]


def test_bad_callback_options_are_refused_with_what_to_write() -> None:
    with pytest.raises(UsageError, match="'IDENTITY_LOOPS' is not one of .*did you mean 'IDENTITY_LOOP'"):
        stop_modes(["IDENTITY_LOOPS"])
    with pytest.raises(UsageError, match=r"stop_on=\['RUNAWAY_LOOP'\]"):
        stop_modes("RUNAWAY_LOOP")
    with pytest.raises(UsageError, match="patience must be a whole number of probes, at least 1"):
        StopWatch((FailureMode.RUNAWAY_LOOP,), patience=0)


def test_plan_from_training_on_the_real_run(plain_run: PlainRun, tmp_path: Path) -> None:
    import tomllib

    from instruments_helpers import run_cli

    out, summary = plain_run.out, plain_run.resumed
    ties = checkpoint_ties(read_trainer_state(out / LAST / "trainer_state.json")).ties
    records = {r.step: r for r in read_probes(out).records}
    beyond = {step for step, r in records.items() if step and shown_modes(
        r, [FailureMode.IDENTITY_LOOP, FailureMode.RUNAWAY_LOOP, FailureMode.STOP_FAILURE,
            FailureMode.WALL_COLLAPSE], records[0])}
    expected = [f"ckpt{t.point.step}" for t in ties if t.point.step not in beyond]
    plan = tmp_path / "plan.toml"
    result = run_cli("plan", "from-training", out, "--base", summary["base"], "--preset", "hemingway",
                     "--out", plan)
    if not expected:
        assert result.returncode == 2 and "dropped" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    written = tomllib.loads(plan.read_text(encoding="utf-8"))
    arms = [(a["name"], a["role"], a.get("adapter")) for a in written["arms"]]
    assert arms[0] == ("base-unadapted", "control", None)
    assert [name for name, _, _ in arms[1:]] == expected
    assert all(Path(adapter).name == f"checkpoint-{name[4:]}" for name, _, adapter in arms[1:])
    assert [c["candidate"] for c in written["comparisons"]] == expected


def test_a_resumed_run_keeps_its_baseline_and_probes_only_new_checkpoints(plain_run: PlainRun) -> None:
    """Resuming loads trained weights before the callback starts: probing them as "before training" would move
    the baseline every stop decision is measured against. The baseline stays the first run's step-0 record.

    The plain run is that resumed run: its first process stopped at checkpoint-2, its second resumed there."""
    records = read_probes(plain_run.out).records
    assert [r.step for r in records] == [0, 1, 2, 3]  # one new record: checkpoint-3; no second baseline
    assert records[-1].checkpoint == "checkpoint-3" and plain_run.resumed["steps"] == FIRST_STEPS + 1
    assert "forgegate probe step 0" in plain_run.first["stderr"]  # the check below can see a baseline probe
    assert "forgegate probe step 0" not in plain_run.resumed["stderr"]
    assert "forgegate probe checkpoint-3 (step 3)" in plain_run.resumed["stderr"]
    assert "forgegate probe checkpoint-1" not in plain_run.resumed["stderr"]  # earlier checkpoints not again
