"""Full fine-tunes (no adapter): the callback probes the whole model being trained, `watch` probes each saved
model folder on its own, and `plan from-training` writes each kept checkpoint as an arm's ``model``.

A few steps of real full fine-tuning (``transformers.Trainer``, every weight trained) of the tiny test model.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from instruments_helpers import run_cli
from tiny_models import TRAINING_TEXT, build_base

from forgegate.training import ForgegateCallback
from forgegate.training.records import read_probes

pytestmark = pytest.mark.slow

STEPS, SAVE_EVERY = 6, 2


def _rows(tokenizer: Any, n: int, offset: int) -> list[dict[str, Any]]:
    ids = tokenizer(TRAINING_TEXT)["input_ids"]
    return [{"input_ids": ids[i * 8 + offset:i * 8 + offset + 32], "attention_mask": [1] * 32,
             "labels": ids[i * 8 + offset:i * 8 + offset + 32]} for i in range(n)]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, ForgegateCallback]:
    """(the trainer's output_dir, the base folder, the callback) after STEPS steps of full fine-tuning."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

    root = tmp_path_factory.mktemp("full")
    base = root / "tiny-llama"
    build_base(base)
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    out = root / "run"
    callback = ForgegateCallback()
    args = TrainingArguments(output_dir=str(out), max_steps=STEPS, save_steps=SAVE_EVERY, eval_strategy="steps",
                             eval_steps=SAVE_EVERY, logging_steps=1, per_device_train_batch_size=2,
                             learning_rate=1e-3, report_to=[], use_cpu=True, save_only_model=True, seed=0)
    trainer = Trainer(model=model, args=args, train_dataset=_rows(tokenizer, 8, 0),
                      eval_dataset=_rows(tokenizer, 2, 3), processing_class=tokenizer, callbacks=[callback])
    trainer.train()
    return out, base, callback


def test_the_callback_probes_the_whole_model_at_every_save(full_run: tuple[Path, Path, ForgegateCallback]) -> None:
    out, _, callback = full_run
    records = read_probes(out).records
    assert [(r.step, r.checkpoint) for r in records] == [
        (0, None), *((s, f"checkpoint-{s}") for s in range(SAVE_EVERY, STEPS + 1, SAVE_EVERY))]
    assert all(r.answered == r.items > 0 and r.controls_passed and r.source == "callback" for r in records)
    assert callback.records == list(records)
    saved = out / f"checkpoint-{STEPS}"
    assert (saved / "model.safetensors").is_file() and (saved / "config.json").is_file()
    assert not list(saved.glob("adapter_*"))  # a whole model, not an adapter


def test_watch_probes_each_whole_model_folder_on_its_own(full_run: tuple[Path, Path, ForgegateCallback],
                                                         tmp_path: Path) -> None:
    out, base, _ = full_run
    copy = tmp_path / "run"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("forgegate-probes.jsonl", "forgegate-runs"))
    result = run_cli("watch", copy, "--base", base, "--device", "cpu", "--once")
    assert result.returncode == 0, result.stderr
    watched = {r.checkpoint: r for r in read_probes(copy).records}
    inside = {r.checkpoint: r for r in read_probes(out).records if r.checkpoint is not None}
    assert sorted(watched) == sorted(inside) and len(watched) == STEPS // SAVE_EVERY
    for name, record in watched.items():
        assert record.source == "watch" and f"{name} (full model, step {record.step})" == record.model
        assert record.answered == record.items and record.eval_loss == inside[name].eval_loss
        assert (record.loops, record.correct, record.mode_counts) == (  # greedy: the same weights, the same answers
            inside[name].loops, inside[name].correct, inside[name].mode_counts), name


def test_plan_from_training_writes_each_kept_checkpoint_as_an_arms_model(
        full_run: tuple[Path, Path, ForgegateCallback], tmp_path: Path) -> None:
    out, base, _ = full_run
    plan = tmp_path / "plan.toml"
    seen = {mode for r in read_probes(out).records for mode in r.mode_counts}
    unseen = next(m for m in ("EVAL_FALSE_NEGATIVE", "CORPUS_LOOP_INJECTION", "STYLE_SUBSTANCE") if m not in seen)
    # the tiny random model loops from the start: drop on a mode no probe showed, so the rule keeps the ties
    result = run_cli("plan", "from-training", out, "--base", base, "--preset", "hemingway", "--drop-on", unseen,
                     "--out", plan)
    assert result.returncode == 0, result.stderr
    arms = tomllib.loads(plan.read_text(encoding="utf-8"))["arms"]
    assert (arms[0]["name"], arms[0]["model"], arms[0].get("adapter")) == ("base-unadapted", str(base), None)
    assert len(arms) > 1
    for arm in arms[1:]:
        folder = out / f"checkpoint-{arm['name'].removeprefix('ckpt')}"
        assert arm["model"] == str(folder.resolve()) and arm.get("adapter") is None, arm
        assert (folder / "model.safetensors").is_file()
    assert "full fine-tune" in plan.read_text(encoding="utf-8")
