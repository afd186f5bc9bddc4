"""``forgegate plan from-training``: a finished run's tied checkpoints, less those whose probes showed a failure
mode, become a hemingway plan that loads, checks and locks.

The output folder is built here as a Trainer leaves it: the lv-hemingway loss curve (54 eval points, median
neighbour jitter 0.0044, minimum 2.2783 at step 1750; steps 850 and 1700 tied, everything else outside one
jitter) and real PEFT LoRA checkpoints (one adapter trained on SmolLM2 once per session, tests/conftest.py,
copied into each checkpoint-N/ folder). The probe records are built as ``ProbeRecord`` models and appended as
the callback does.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from instruments_helpers import run_cli, spec_loss_curve, write_trainer_state

from forgegate.backends.embedded import bundled_gguf
from forgegate.core.version import __version__
from forgegate.plan import check_adapters, load_plan, lock_path, plan_inputs
from forgegate.plan.presets import PRESETS
from forgegate.results import ProbeRecord
from forgegate.training.drop_on import DROP_ON_DEFAULT
from forgegate.training.records import append_probe, probes_path
from forgegate.training.stopping import FALSE_STOP_RATE
from tests.plan_helpers import audit_json

pytestmark = pytest.mark.slow
pytest.importorskip("peft")
pytest.importorskip("gguf")

TIED = (850, 1700, 1750)
SAVED = (*TIED, 2650)
ITEMS = 33
"""The bundled probe's size (issue 37)."""
THRESHOLD = f"{FALSE_STOP_RATE / len(DROP_ON_DEFAULT):.2g}"
"""Each --drop-on mode's share of the false-stop rate: the stop rule's."""


@pytest.fixture(scope="module")
def adapter(smol_adapters: dict[str, Path]) -> Path:
    """A real PEFT LoRA folder over the bundled SmolLM2 (its adapter_config.json names that base; conftest.py)."""
    return smol_adapters["a"]


def base() -> str:
    return str(bundled_gguf())


def output_dir(root: Path, adapter: Path, saved: tuple[int, ...] = SAVED) -> Path:
    """A Trainer output folder: trainer_state.json at the top and one adapter checkpoint per saved step."""
    run = root / "run"
    run.mkdir(parents=True)
    write_trainer_state(run / "trainer_state.json", spec_loss_curve())
    for step in saved:
        shutil.copytree(adapter, run / f"checkpoint-{step}")
    return run


def probe(step: int, counts: dict[str, int], *, controls: bool = True) -> ProbeRecord:
    return ProbeRecord(
        kind="probe", schema_version=1, forgegate_version=__version__, created="2026-11-30T12:00:00Z",
        source="callback", step=step, epoch=round(step / 887, 3), checkpoint=f"checkpoint-{step}" if step else None,
        model=f"checkpoint-{step} (in memory)", run_id=f"probe-{step}", store="forgegate-runs/probe.sqlite",
        eval_loss=spec_loss_curve().get(step), items=ITEMS, answered=ITEMS, correct=6, accuracy=0.5,
        loops=counts.get("RUNAWAY_LOOP", 0) + counts.get("IDENTITY_LOOP", 0), stop_failures=0, walls=1,
        wall_breaks=0, failure_modes=sorted(m for m, n in counts.items() if n), mode_counts=counts,
        controls_passed=controls, gate="HOLD" if counts else "PASS", elapsed_s=4.2)


def from_training(run: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    result = run_cli("plan", "from-training", run, "--base", base(), "--preset", "hemingway", "--out", out,
                     *extra)
    return result.returncode, result.stdout, result.stderr


def flat(text: str) -> str:
    """Text with its wrapped comment lines joined (a comment goes on after a line break and "#   ")."""
    return " ".join(text.replace("\n#   ", " ").split())


def write_inputs(plan: Path) -> None:
    """The files the preset names (fixture, reference, corpus), where the plan looks for them."""
    for item in plan_inputs(load_plan(plan)):
        item.path.parent.mkdir(parents=True, exist_ok=True)
        if item.written.endswith(".jsonl"):
            item.path.write_text("".join(json.dumps({"id": f"b{i}", "prompt": f"Write beat {i}."}) + "\n"
                                         for i in range(3)))
        else:
            item.path.write_text("The sea was hard and bright and the old man did not speak. " * 40)


def test_ties_less_the_looping_checkpoint_become_arms_of_a_plan_that_checks_and_locks(
        tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    append_probe(run, probe(0, {"RUNAWAY_LOOP": 16}))                      # the base model runs on already
    append_probe(run, probe(850, {"RUNAWAY_LOOP": 18}))                    # two more: within chance, kept
    append_probe(run, probe(1700, {"IDENTITY_LOOP": 10, "RUNAWAY_LOOP": 16}))  # a loop training made: dropped
    append_probe(run, probe(1750, {}))
    plan = tmp_path / "plan.toml"

    code, out, err = from_training(run, plan)

    assert code == 0, err
    assert "54 eval points; median neighbour jitter 0.0044; minimum eval_loss 2.2783 at step 1750" in out
    dropped = ("step 1700 (+0.0017, 0.39 jitters): DROPPED: IDENTITY_LOOP in 10/33 items against 0/33 before "
               "training (Fisher's exact test, one-sided, p=")
    assert dropped in out and f" <= {THRESHOLD})" in out.split(dropped, 1)[1].splitlines()[0]
    kept = ("step 850 (+0.0040, 0.91 jitters): kept as ckpt850: probe clean: RUNAWAY_LOOP in 18/33 items against "
            "16/33 before training (Fisher's exact test, one-sided, p=")
    assert kept in out and f" > {THRESHOLD}): not beyond chance" in out.split(kept, 1)[1].splitlines()[0]
    assert f"false-stop rate {FALSE_STOP_RATE:.2g} per probe ({THRESHOLD} per mode over 4 watched modes)" in out
    loaded = load_plan(plan)
    p = loaded.plan
    assert [(a.name, a.role, a.backend, a.model) for a in p.arms] == [
        ("base-unadapted", "control", "transformers", base()), ("ckpt850", "tied_candidate", "transformers", base()),
        ("ckpt1750", "ship_candidate", "transformers", base())]  # the curve's minimum is the ship candidate
    assert p.tiebreak is not None and p.tiebreak.prior is None  # the preset's example prior names no arm here
    assert p.arms[0].adapter is None
    assert [a.adapter for a in p.arms[1:]] == ["run/checkpoint-850", "run/checkpoint-1750"]  # from the plan's folder
    assert check_adapters(loaded) == [run / "checkpoint-850", run / "checkpoint-1750"]   # real PEFT, base matches
    assert [(c.control, c.candidate, c.primary) for c in p.comparisons] == [
        ("base-unadapted", "ckpt850", "voice.delta_gap"), ("base-unadapted", "ckpt1750", "voice.delta_gap")]
    assert p.name == "run"

    text = plan.read_text()
    arm850 = text[text.index("# step 850,"):text.index('name = "ckpt850"')]
    assert "eval_loss 2.2823, +0.0040 above the minimum (2.2783 at step 1750), 0.91 jitters" in flat(arm850)
    assert "(median neighbour jitter 0.0044 over 54 eval points): a tie" in flat(arm850)
    assert "checkpoint-850: a LoRA adapter" in arm850 and "epoch 0.958" in arm850
    assert "eval_loss 2.2783, the curve's minimum" in text[text.index("# step 1750,"):]
    assert "step 1700 (checkpoint-1700): IDENTITY_LOOP in 10/33 items against 0/33 before training" in flat(text)
    assert "the last, step 2661, at +0.0763 (17.42 jitters)" in flat(text)
    # everything but the arms and comparisons is the preset's own text: its settings and its comments
    written, preset = tomllib.loads(text), tomllib.loads(PRESETS["hemingway"])
    for key in ("author", "seeds", "sampling", "fixture", "instruments"):
        assert written[key] == preset[key]
    assert "# B. NOT COPIED: longest verbatim n-gram" in text
    assert "# negative control for memorisation and the voice baseline" in text

    write_inputs(plan)
    # the leak audit's inputs are the user's to fill in like the fixture's; here a clean audit's result
    text = plan.read_text()
    plan.write_text(text[:text.index("[leak_audit]")] + '[leak_audit]\nresult = "leak.json"\nclean_splits = ["val"]\n')
    (plan.parent / "leak.json").write_text(json.dumps(audit_json("PASS", "CLEAN")))
    locked = run_cli("plan", "lock", plan)
    assert locked.returncode == 0, locked.stderr
    assert lock_path(plan).is_file()
    checked = run_cli("plan", "check", plan)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert "valid; 3 arms" in flat(checked.stdout) and "2 comparisons" in flat(checked.stdout)


def test_the_baseline_decides_an_unprobed_or_invalid_probe_keeps_and_drop_on_changes_the_modes(
        tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    append_probe(run, probe(850, {"RUNAWAY_LOOP": 3}))        # no baseline: any item counts
    append_probe(run, probe(1700, {"IDENTITY_LOOP": 5}, controls=False))
    code, out, err = from_training(run, tmp_path / "plan.toml")
    assert code == 0, err
    assert ("step 850 (+0.0040, 0.91 jitters): DROPPED: RUNAWAY_LOOP in 3/33 items (no baseline: any item "
            "counts)") in out
    assert "no baseline probe (step 0)" in out
    assert "step 1700 (+0.0017, 0.39 jitters): kept as ckpt1700: probe INVALID: the loop detector's controls " \
           "failed, so it cannot clear this checkpoint" in out
    assert "kept as ckpt1750: not probed (no record for step 1750 in forgegate-probes.jsonl)" in out
    text = (tmp_path / "plan.toml").read_text()
    assert "not probed (no record for step 1750" in flat(text) and "probe INVALID" in text
    assert [a.name for a in load_plan(tmp_path / "plan.toml").plan.arms] == ["base-unadapted", "ckpt1700",
                                                                             "ckpt1750"]

    code, out, err = from_training(run, tmp_path / "plan.toml", "--force", "--drop-on", "IDENTITY_LOOP")
    assert code == 0, err
    assert "kept as ckpt850: probe clean: none of IDENTITY_LOOP" in out


def test_without_a_probe_file_every_tie_is_kept_and_said_not_probed(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    code, out, err = from_training(run, tmp_path / "plan.toml")
    assert code == 0, err
    assert out.count("not probed (no forgegate-probes.jsonl)") == 3
    assert [a.name for a in load_plan(tmp_path / "plan.toml").plan.arms[1:]] == [f"ckpt{s}" for s in TIED]


def test_a_plan_outside_the_run_names_the_checkpoints_by_absolute_path(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    plan = tmp_path / "plans" / "plan.toml"
    code, _, err = from_training(run, plan)
    assert code == 0, err
    loaded = load_plan(plan)
    assert loaded.plan.arms[1].adapter == str((run / "checkpoint-850").resolve())
    assert check_adapters(loaded)[0] == (run / "checkpoint-850").resolve()


def test_a_full_fine_tune_checkpoint_is_the_arms_model(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_trainer_state(run / "trainer_state.json", spec_loss_curve())
    for step in TIED:
        (run / f"checkpoint-{step}").mkdir()
        (run / f"checkpoint-{step}" / "config.json").write_text(json.dumps({"model_type": "llama"}))
    code, _, err = from_training(run, tmp_path / "plan.toml")
    assert code == 0, err
    arms = load_plan(tmp_path / "plan.toml").plan.arms
    assert [(a.model, a.adapter) for a in arms[1:]] == [(str((run / f"checkpoint-{s}").resolve()), None)
                                                        for s in TIED]
    assert "full fine-tune" in (tmp_path / "plan.toml").read_text()


def test_without_a_top_level_state_the_newest_checkpoints_is_read_and_named(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    (run / "trainer_state.json").unlink()
    curve = spec_loss_curve()
    write_trainer_state(run / "checkpoint-1750" / "trainer_state.json", {s: v for s, v in curve.items() if s <= 1750})
    write_trainer_state(run / "checkpoint-2650" / "trainer_state.json", curve)
    code, out, err = from_training(run, tmp_path / "plan.toml")
    assert code == 0, err
    assert "no trainer_state.json at the top of" in out and "checkpoint-2650/trainer_state.json" in out
    assert "54 eval points" in out


# Bad input: exit 2, the file, what to do; nothing written.

def refused(run: Path, out: Path, *extra: str) -> str:
    code, stdout, err = from_training(run, out, *extra)
    assert code == 2, stdout + err
    return " ".join(err.split())


def test_a_missing_folder_or_one_without_any_trainer_state_is_refused(tmp_path: Path) -> None:
    err = refused(tmp_path / "nope", tmp_path / "plan.toml")
    assert "nope: no such folder" in err and "output_dir" in err
    (tmp_path / "run" / "checkpoint-50").mkdir(parents=True)
    err = refused(tmp_path / "run", tmp_path / "plan.toml")
    assert "no trainer_state.json, neither at the top nor in any checkpoint-N/" in err
    assert not (tmp_path / "plan.toml").exists()


def test_a_curve_of_two_eval_points_has_no_jitter_and_says_how_to_log_eval_loss(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_trainer_state(run / "trainer_state.json", {50: 2.5, 100: 2.4})
    err = refused(run, tmp_path / "plan.toml")
    assert "trainer_state.json" in err and "2 eval point(s)" in err and "no jitter can be measured" in err
    assert 'eval_strategy="steps", eval_steps=N' in err


def test_a_tie_without_its_checkpoint_folder_is_refused(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter, saved=(1700, 1750, 2650))
    err = refused(run, tmp_path / "plan.toml")
    assert "ties step(s) 850 with its minimum, but no checkpoint-850/ was saved" in err
    assert "save_steps a multiple of eval_steps" in err and "save_total_limit" in err
    assert not (tmp_path / "plan.toml").exists()


def test_every_tie_dropped_writes_nothing_and_says_why(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    append_probe(run, probe(0, {}))
    for step in TIED:
        append_probe(run, probe(step, {"IDENTITY_LOOP": 12}))
    err = refused(run, tmp_path / "plan.toml")
    assert "forgegate-probes.jsonl" in err and "no plan written" in err
    assert "step 850: IDENTITY_LOOP in 12/33 items against 0/33 before training" in flat(err)
    assert not (tmp_path / "plan.toml").exists()


def test_an_existing_plan_is_kept_unless_forced(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    plan = tmp_path / "plan.toml"
    plan.write_text("mine\n")
    err = refused(run, plan)
    assert "plan.toml exists: choose another --out or pass --force" in err
    assert plan.read_text() == "mine\n"
    code, _, err = from_training(run, plan, "--force")
    assert code == 0, err
    assert len(load_plan(plan).plan.arms) == 4


def test_a_damaged_probe_line_is_reported_and_the_rest_is_read(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    append_probe(run, probe(0, {}))
    append_probe(run, probe(1700, {"IDENTITY_LOOP": 12}))  # beyond chance against 0/33: dropped
    with probes_path(run).open("a") as handle:
        handle.write('{"kind": "probe", "step": 17')  # an append cut short
    code, out, err = from_training(run, tmp_path / "plan.toml")
    assert code == 0, err
    assert "warning:" in err and "forgegate-probes.jsonl:3: partial last line" in err
    assert "step 1700 (+0.0017, 0.39 jitters): DROPPED" in out


def test_an_adapter_trained_on_another_base_is_refused(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    result = run_cli("plan", "from-training", run, "--base", "Qwen/Qwen3-4B-Instruct", "--preset", "hemingway",
                     "--out", tmp_path / "plan.toml")
    assert result.returncode == 2
    err = " ".join(result.stderr.split())
    assert "checkpoint-850/adapter_config.json" in err and "but the arm's model is 'Qwen/Qwen3-4B-Instruct'" in err
    assert not (tmp_path / "plan.toml").exists()


def test_a_checkpoint_folder_that_is_neither_adapter_nor_model_is_refused(tmp_path: Path, adapter: Path) -> None:
    run = output_dir(tmp_path, adapter)
    (run / "checkpoint-1700" / "adapter_config.json").unlink()
    err = refused(run, tmp_path / "plan.toml")
    assert "checkpoint-1700: holds neither adapter_config.json (a PEFT adapter) nor config.json" in err


@pytest.mark.parametrize(("preset", "why"), [
    ("gloss", "it has no control arm"), ("tgpt", "[instruments.semantic] names its arms"),
    ("nope", "unknown preset 'nope'")])
def test_presets_without_a_control_and_candidates_shape_are_refused(preset: str, why: str, tmp_path: Path) -> None:
    result = run_cli("plan", "from-training", tmp_path, "--base", "b", "--preset", preset,
                     "--out", tmp_path / "plan.toml")
    assert result.returncode == 2 and why in result.stderr
    if preset != "nope":
        assert "use --preset hemingway" in " ".join(result.stderr.split())


def test_an_unknown_drop_on_mode_is_refused(tmp_path: Path) -> None:
    result = run_cli("plan", "from-training", tmp_path, "--base", "b", "--preset", "hemingway",
                     "--drop-on", "IDENTITY_LOOP,RUNAWAY_LOP")
    assert result.returncode == 2
    assert "--drop-on: 'RUNAWAY_LOP' is not one of" in result.stderr and "did you mean 'RUNAWAY_LOOP'" in result.stderr
