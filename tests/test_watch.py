"""``forgegate watch`` on REAL PEFT adapters over the real SmolLM2 (the packaged GGUF, through transformers).

One output folder is built for the module, as a Trainer leaves it mid-run: two complete adapter
checkpoints (checkpoint-1 and checkpoint-3 of the suite's real training run, tests/conftest.py
``lora_run``, as its Trainer wrote them), one whose adapter names another base, and one still being
written. The first ``--once`` (run once, shared) probes the two complete ones; the other tests read
what it did (and compare it with what the training callback probed in memory at those steps), run it
again, or finish the half-written checkpoint in a copy. Probing SmolLM2 on a small CPU takes tens of
seconds, so the module probes three checkpoints in all, with the plain run's 11-item mechanics probe (the
callback probed the same items; tests/training_run.py); the Ctrl-C test probes with the bundled probe.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from interrupt_helpers import interrupt_when
from rich.console import Console
from smol_lora import OTHER_BASE
from training_run import MECHANICS_PROBE_ITEMS, PlainRun

from forgegate.backends import transformers_backend
from forgegate.backends.embedded import bundled_gguf
from forgegate.backends.transformers_backend import TransformersBackend
from forgegate.battery import bundled_probe_battery_path, load_battery
from forgegate.cli.main import run
from forgegate.results import ProbeRecord
from forgegate.store import RunStore
from forgegate.training.checkpoint_files import Checkpoint
from forgegate.training.probe import probe_line
from forgegate.training.records import RUNS_DIR, append_probe, read_probes
from forgegate.training.watch import Watcher, WatchOptions
from forgegate.training.watch_view import LiveTable

pytestmark = pytest.mark.slow
pytest.importorskip("peft")
pytest.importorskip("gguf")

PROBE_ITEMS = len(load_battery(bundled_probe_battery_path()).items)
PROBED = ("checkpoint-1", "checkpoint-3")
"""The real run's checkpoints watch probes here: the first and the last, the weights furthest apart, one after
the other on the one base watch keeps loaded (an adapter left behind by the first would change the second's
answers, and the comparison with the callback's probes would show it)."""


def write_state(folder: Path, step: int) -> None:
    """The trainer_state.json a Trainer writes last into ``checkpoint-STEP``."""
    history: list[dict[str, Any]] = [{"loss": 3.0, "step": step, "epoch": step / 40}]
    (folder / "trainer_state.json").write_text(json.dumps(
        {"global_step": step, "epoch": step / 40, "log_history": history}), encoding="utf-8")


def checkpoint_from(adapter: Path, out: Path, step: int) -> Path:
    folder = out / f"checkpoint-{step}"
    shutil.copytree(adapter, folder)
    write_state(folder, step)
    return folder


def half_written(adapter: Path, out: Path, step: int) -> Path:
    """A checkpoint caught mid-save: the adapter's weights cut short, no trainer_state.json yet."""
    folder = out / f"checkpoint-{step}"
    folder.mkdir()
    shutil.copy(adapter / "adapter_config.json", folder)
    weights = (adapter / "adapter_model.safetensors").read_bytes()
    (folder / "adapter_model.safetensors").write_bytes(weights[: len(weights) // 2])
    return folder


def finish(adapter: Path, folder: Path, step: int) -> None:
    shutil.copy(adapter / "adapter_model.safetensors", folder)
    write_state(folder, step)


@dataclass
class Entry:
    code: int
    out: str
    err: str


def forgegate(*args: str) -> Entry:
    """The console entry's handler in-process (module fixtures cannot use capsys)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["forgegate", *args])
    return Entry(code, out.getvalue(), err.getvalue())


def watch_args(out: Path, *extra: str) -> list[str]:
    return ["watch", str(out), "--base", str(bundled_gguf()), "--device", "cpu", *extra]


def store_rows(out: Path, *, readonly: bool = False) -> dict[str, int]:
    """Answers held in each run store under the output folder."""
    rows = {}
    for path in sorted((out / RUNS_DIR).rglob("*.sqlite")):
        with RunStore.open(path, create=False, readonly=readonly) as store:
            rows[path.name] = len(store.finished_keys())
    return rows


def answers_so_far(out: Path) -> int:
    """Answers another process has stored so far (0 while its store is still being created)."""
    try:
        return sum(store_rows(out, readonly=True).values())
    except Exception:  # noqa: BLE001 - a store being created cannot be read yet; the next look can
        return 0


@pytest.fixture(scope="module")
def adapters(smol_adapters: dict[str, Path]) -> dict[str, Path]:
    """Two LoRA adapters trained on SmolLM2, and a copy of one that names another base (conftest.py, shared)."""
    return smol_adapters


@dataclass
class FirstWatch:
    out: Path
    battery: Path
    """The plain run's probe battery (tests/training_run.py): the same items the callback probed."""
    entry: Entry
    base_loads: int


@pytest.fixture(scope="module")
def first(adapters: dict[str, Path], lora_run: PlainRun, tmp_path_factory: pytest.TempPathFactory) -> FirstWatch:
    """``watch --once`` over a folder mid-run; it counts how often the base model is loaded."""
    out = tmp_path_factory.mktemp("run") / "output"
    out.mkdir()
    for name in PROBED:  # as the real run's Trainer wrote them (its trainer_state.json included)
        shutil.copytree(lora_run.out / name, out / name)
    append_probe(out, read_probes(lora_run.out).latest_by_step()[0])  # the callback's baseline, before training
    checkpoint_from(adapters["other"], out, 2)
    half_written(adapters["a"], out, 30)
    loads = []
    real_load = transformers_backend.load_base

    def counting(*args: Any, **kwargs: Any) -> Any:
        loads.append(args)
        return real_load(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transformers_backend, "load_base", counting)
        entry = forgegate(*watch_args(out, "--once", "--battery", str(lora_run.battery)))
    return FirstWatch(out, lora_run.battery, entry, len(loads))


def watch_records(out: Path) -> list[ProbeRecord]:
    """The records watch wrote (the folder also holds the callback's baseline, step 0)."""
    return [r for r in read_probes(out).records if r.source == "watch"]


def in_memory(lora_run: PlainRun) -> dict[str, ProbeRecord]:
    """What the training callback probed at each checkpoint of the real run (the trainer's model, in memory)."""
    return {r.checkpoint: r for r in read_probes(lora_run.out).records if r.checkpoint is not None}


def test_once_probes_the_complete_checkpoints_in_step_order_and_records_each(first: FirstWatch,
                                                                            lora_run: PlainRun) -> None:
    records = watch_records(first.out)
    assert [(r.checkpoint, r.step, r.source) for r in records] == [("checkpoint-1", 1, "watch"),
                                                                   ("checkpoint-3", 3, "watch")]
    inside = in_memory(lora_run)  # the eval_loss and epoch the Trainer logged at that step, as the callback read them
    assert all(r.eval_loss is not None and r.epoch for r in records)
    assert [(r.eval_loss, r.epoch) for r in records] == [(inside[c].eval_loss, inside[c].epoch) for c in PROBED]
    assert all(r.items == MECHANICS_PROBE_ITEMS and r.answered == MECHANICS_PROBE_ITEMS for r in records)
    assert [line for line in first.entry.out.splitlines() if line.startswith("forgegate probe")] == [
        probe_line(r) for r in records]  # stdout is not a terminal: one line per probe
    assert all(count == MECHANICS_PROBE_ITEMS for count in store_rows(first.out).values())
    assert len(store_rows(first.out)) == 2


def test_watch_finds_what_the_training_callback_found_at_the_same_checkpoints(first: FirstWatch,
                                                                             lora_run: PlainRun) -> None:
    """The same checkpoints probed from disk (watch: the base plus each saved adapter) and in memory (the
    callback: the trainer's model at that step) give the same counts: greedy, the same weights."""
    watched = {r.checkpoint: r for r in watch_records(first.out)}
    inside = in_memory(lora_run)
    assert sorted(inside) == ["checkpoint-1", "checkpoint-2", "checkpoint-3"]
    assert sorted(watched) == list(PROBED)
    for name, record in watched.items():
        assert record.source == "watch" and inside[name].source == "callback"
        assert (record.loops, record.stop_failures, record.wall_breaks, record.correct, record.mode_counts) == (
            inside[name].loops, inside[name].stop_failures, inside[name].wall_breaks, inside[name].correct,
            inside[name].mode_counts), name
        # the one stop rule's test against the same baseline: the same counts and p-values from either side
        assert record.versus_baseline and record.versus_baseline == inside[name].versus_baseline, name


def test_the_base_is_loaded_once_for_every_adapter_checkpoint(first: FirstWatch) -> None:
    assert len(watch_records(first.out)) == 2
    assert first.base_loads == 1


def test_an_adapter_trained_on_another_base_is_named_and_nothing_is_recorded(first: FirstWatch) -> None:
    assert first.entry.code == 2
    assert f"checkpoint-2: not probed, nothing recorded: adapter {first.out / 'checkpoint-2'} was trained on " \
           f"'{OTHER_BASE}'" in " ".join(first.entry.err.split())
    assert "checkpoint-2" not in read_probes(first.out).probed_checkpoints()


def test_a_half_written_checkpoint_is_not_probed_and_says_what_it_waits_for(first: FirstWatch) -> None:
    err = " ".join(first.entry.err.split())
    assert "checkpoint-30 is not completely written (adapter_model.safetensors is still being written" in err
    assert "run again once it is" in err
    assert "checkpoint-30" not in read_probes(first.out).probed_checkpoints()


def test_a_second_once_probes_nothing_already_recorded(first: FirstWatch) -> None:
    probes = first.out / "forgegate-probes.jsonl"
    before, rows = probes.read_bytes(), store_rows(first.out)
    again = forgegate(*watch_args(first.out, "--once", "--battery", str(first.battery)))
    assert again.code == 2  # the mismatched adapter is still there, and still refused
    assert probes.read_bytes() == before
    assert store_rows(first.out) == rows
    assert "forgegate probe" not in again.out and "probing" not in again.err
    err = " ".join(again.err.split())
    for record in read_probes(first.out).records:
        assert f"already probed (forgegate-probes.jsonl): {probe_line(record)}" in err


class Seen:
    """A view that keeps what it is shown."""

    def __init__(self) -> None:
        self.shown: list[tuple[ProbeRecord, bool]] = []
        self.started: list[str] = []

    def show(self, record: ProbeRecord, *, earlier: bool) -> None:
        self.shown.append((record, earlier))

    def probing(self, checkpoint: Checkpoint) -> None:
        self.started.append(checkpoint.name)

    def close(self) -> None:
        pass


def test_the_half_written_checkpoint_is_probed_on_the_next_look_once_it_is_complete(
        first: FirstWatch, adapters: dict[str, Path], tmp_path: Path) -> None:
    out = shutil.copytree(first.out, tmp_path / "output")
    view, said = Seen(), []
    watcher = Watcher(WatchOptions(output_dir=out, base=str(bundled_gguf()), device="cpu", settle_s=0.2,
                                   battery=first.battery),
                      view, said.append)

    async def two_looks() -> None:
        try:
            await watcher.poll()
            assert watcher.outcome.waiting == {"checkpoint-30": said[-1].split(": ", 1)[1]}
            assert said[-1].startswith("waiting for checkpoint-30: adapter_model.safetensors is still being written")
            finish(adapters["a"], out / "checkpoint-30", 30)
            await watcher.poll()
            held = watcher._keeper  # the backend kept open over the base
            assert isinstance(held, TransformersBackend) and held._base is not None
            assert held._base.adapters == {}  # the probed adapter's weights left the base it keeps loaded
        finally:
            await watcher.aclose()

    asyncio.run(two_looks())
    assert [r.checkpoint for r, earlier in view.shown if not earlier] == ["checkpoint-30"]
    assert [r.checkpoint for r in watch_records(out)] == ["checkpoint-1", "checkpoint-3", "checkpoint-30"]
    finished = watch_records(out)[-1]
    assert (finished.eval_loss, finished.epoch) == (None, 30 / 40)  # its trainer_state.json logged no eval
    assert view.started == ["checkpoint-30"]
    assert watcher.outcome.waiting == {}


def test_the_live_table_has_a_row_per_checkpoint_with_its_counts(first: FirstWatch) -> None:
    screen = io.StringIO()
    table = LiveTable(Console(file=screen, force_terminal=True, width=400))
    records = watch_records(first.out)
    table.show(records[0], earlier=True)
    table.show(records[1], earlier=False)
    table.close()
    last = screen.getvalue().rsplit("forgegate watch: probes by checkpoint", 1)[1]
    rows = [line for line in last.splitlines() if "checkpoint-" in line]
    assert len(rows) == 2
    assert records[0].eval_loss is not None
    assert f"{records[0].eval_loss:.4f}" in rows[0] and "earlier" in rows[0]
    assert f"{records[1].loops}/{records[1].answered}" in rows[1] and f"{records[1].elapsed_s:.1f} s" in rows[1]
    test = records[1].versus_baseline[0]  # each mode against the baseline, with Fisher's p
    assert f"{test.mode} {test.count}/{test.answered} vs {test.baseline_count}/{test.baseline_answered}" in rows[1]


def test_once_on_a_folder_that_does_not_exist_says_what_to_do(tmp_path: Path) -> None:
    entry = forgegate(*watch_args(tmp_path / "nowhere", "--once"))
    assert entry.code == 2
    assert "does not exist" in entry.err and "without --once to wait for it" in " ".join(entry.err.split())


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_while_waiting_for_the_folder_exits_130(tmp_path: Path) -> None:
    waiting = f"waiting for {tmp_path / 'later'} to appear"
    returncode, err = interrupt_when([*watch_args(tmp_path / "later"), "--interval", "0.2"],
                                     lambda text: waiting in " ".join(text.split()))
    assert returncode == 130, err
    assert waiting in " ".join(err.split())
    assert "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_in_the_middle_of_a_probe_exits_130_and_records_nothing(adapters: dict[str, Path],
                                                                       tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    checkpoint_from(adapters["a"], out, 10)
    returncode, err = interrupt_when(watch_args(out, "--once"), lambda _: bool(answers_so_far(out)), timeout=300)
    err = " ".join(err.split())
    assert returncode == 130, err
    assert "Traceback" not in err
    assert not (out / "forgegate-probes.jsonl").exists()  # no record of a probe that did not finish
    # kept: a restart resumes them
    assert re.search(rf"interrupted: \d+ of {PROBE_ITEMS} answers are stored in ", err), err
    assert "resume with: " in err and "watch" in err.split("resume with: ", 1)[1]
