"""Whether a ``checkpoint-N/`` folder is completely written, the way ``forgegate watch`` decides it (no model).

The files are the shapes a Trainer writes (safetensors with a real header, a torch zip, a
trainer_state.json); each test catches the folder at one moment of its save.
"""

from __future__ import annotations

import asyncio
import json
import struct
import zipfile
from pathlib import Path

import pytest
from cli_helpers import run_entry

from forgegate.training.checkpoint_files import (
    Checkpoint,
    Ready,
    Waiting,
    eval_loss_at,
    inspect_checkpoint,
    list_checkpoints,
)
from forgegate.training.watch import Watcher, WatchOptions


def safetensors_bytes(n_floats: int) -> bytes:
    """A valid safetensors file holding one float32 tensor of ``n_floats`` values."""
    header = json.dumps({"w": {"dtype": "F32", "shape": [n_floats], "data_offsets": [0, 4 * n_floats]}}).encode()
    return struct.pack("<Q", len(header)) + header + bytes(4 * n_floats)


def state(step: int, *entries: dict[str, object]) -> str:
    return json.dumps({"global_step": step, "epoch": 1.5, "log_history": list(entries)})


def adapter_checkpoint(out: Path, step: int, *, weights: bytes | None = None, trainer_state: str | None = None) -> Path:
    folder = out / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text(json.dumps({"r": 8}))
    (folder / "adapter_model.safetensors").write_bytes(safetensors_bytes(64) if weights is None else weights)
    (folder / "trainer_state.json").write_text(state(step) if trainer_state is None else trainer_state)
    return folder


def look(folder: Path) -> Ready | Waiting:
    return inspect_checkpoint(Checkpoint(folder.name, int(folder.name.split("-")[1]), folder))


def test_a_complete_adapter_checkpoint_is_ready_with_its_step_s_eval_loss_and_epoch(tmp_path: Path) -> None:
    folder = adapter_checkpoint(tmp_path, 40, trainer_state=state(
        40, {"eval_loss": 1.9, "step": 20}, {"loss": 2.0, "step": 40}, {"eval_loss": 1.75, "step": 40}))
    ready = look(folder)
    assert isinstance(ready, Ready)
    assert (ready.kind, ready.eval_loss, ready.epoch) == ("adapter", 1.75, 1.5)


def test_no_trainer_state_yet_is_waiting_for_it(tmp_path: Path) -> None:
    folder = adapter_checkpoint(tmp_path, 10)
    (folder / "trainer_state.json").unlink()
    assert look(folder) == Waiting("no trainer_state.json yet (the Trainer writes it last)")


def test_a_trainer_state_cut_short_is_waiting_not_an_error(tmp_path: Path) -> None:
    folder = adapter_checkpoint(tmp_path, 10, trainer_state=state(10)[:-7])
    waiting = look(folder)
    assert isinstance(waiting, Waiting) and "trainer_state.json is still being written" in waiting.reason


@pytest.mark.parametrize("keep", [3, 8 + 20, len(safetensors_bytes(64)) - 1])
def test_safetensors_cut_short_anywhere_is_waiting_with_how_far_it_got(tmp_path: Path, keep: int) -> None:
    folder = adapter_checkpoint(tmp_path, 10, weights=safetensors_bytes(64)[:keep])
    waiting = look(folder)
    assert isinstance(waiting, Waiting)
    assert waiting.reason.startswith("adapter_model.safetensors is still being written")
    assert f"{keep}" in waiting.reason


def test_a_torch_bin_is_ready_only_once_it_is_a_whole_zip(tmp_path: Path) -> None:
    folder = adapter_checkpoint(tmp_path, 10)
    (folder / "adapter_model.safetensors").unlink()
    with zipfile.ZipFile(folder / "adapter_model.bin", "w") as archive:
        archive.writestr("archive/data.pkl", b"x" * 1000)
    assert isinstance(look(folder), Ready)
    whole = (folder / "adapter_model.bin").read_bytes()
    (folder / "adapter_model.bin").write_bytes(whole[: len(whole) // 2])
    waiting = look(folder)
    assert isinstance(waiting, Waiting) and "adapter_model.bin is still being written" in waiting.reason


def test_a_full_model_waits_for_every_shard_its_index_names(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoint-5"
    folder.mkdir()
    assert look(folder) == Waiting("no adapter_config.json (a PEFT adapter) or config.json (a full model) yet")
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    (folder / "model-00001-of-00002.safetensors").write_bytes(safetensors_bytes(4))
    (folder / "trainer_state.json").write_text(state(5))
    assert look(folder) == Waiting("1 of 2 weight shards not there yet (first: model-00002-of-00002.safetensors)")
    (folder / "model-00002-of-00002.safetensors").write_bytes(safetensors_bytes(4))
    ready = look(folder)
    assert isinstance(ready, Ready) and ready.kind == "full" and ready.eval_loss is None


def test_checkpoints_are_listed_in_step_order_and_nothing_else_is(tmp_path: Path) -> None:
    for name in ("checkpoint-100", "checkpoint-20", "checkpoint-3", "runs", "checkpoint-x", "checkpoint-7.tmp"):
        (tmp_path / name).mkdir()
    (tmp_path / "checkpoint-50").write_text("a file, not a folder")
    assert [c.name for c in list_checkpoints(tmp_path)] == ["checkpoint-3", "checkpoint-20", "checkpoint-100"]


def test_eval_loss_is_the_one_logged_at_that_step() -> None:
    history: list[object] = [{"eval_loss": 2.0, "step": 10}, {"loss": 1.0, "step": 20}, "junk",
                             {"eval_loss": "nan?", "step": 20}]
    assert eval_loss_at(history, 10) == 2.0
    assert eval_loss_at(history, 20) is None


class Quiet:
    def show(self, record: object, *, earlier: bool) -> None:
        raise AssertionError("nothing is probed here")

    def probing(self, checkpoint: Checkpoint) -> None:
        raise AssertionError("nothing is probed here")

    def close(self) -> None:
        pass


def test_a_complete_checkpoint_whose_files_still_change_is_waited_for_until_two_looks_agree(tmp_path: Path) -> None:
    """The stillness check: a copy that writes trainer_state.json before it finishes another file."""
    folder = adapter_checkpoint(tmp_path, 10)
    watcher = Watcher(WatchOptions(output_dir=tmp_path, base="unused"), Quiet(), lambda line: None)
    (checkpoint,) = list_checkpoints(tmp_path)
    assert watcher._look(checkpoint) is None  # complete, but seen once: not yet known to be still
    (folder / "optimizer.pt").write_bytes(b"still coming")
    assert watcher._look(checkpoint) is None  # changed since the last look
    assert isinstance(watcher._look(checkpoint), Ready)  # two looks agree


def test_a_poll_says_once_what_a_checkpoint_waits_for_and_probes_nothing(tmp_path: Path) -> None:
    folder = adapter_checkpoint(tmp_path, 10)
    (folder / "trainer_state.json").unlink()
    said: list[str] = []
    watcher = Watcher(WatchOptions(output_dir=tmp_path, base="unused", settle_s=0.01), Quiet(), said.append)
    asyncio.run(watcher.poll())
    asyncio.run(watcher.poll())
    assert said == ["waiting for checkpoint-10: no trainer_state.json yet (the Trainer writes it last)"]
    assert watcher.outcome.waiting == {"checkpoint-10": "no trainer_state.json yet (the Trainer writes it last)"}


@pytest.mark.parametrize(("extra", "says"), [
    (["--backend", "ollama"], "--backend ollama: watch probes through transformers"),
    (["--interval", "0"], "--interval must be a positive number of seconds, not 0"),
    (["--device", "gpu"], "--device: device 'gpu' is not one of"),
])
def test_options_that_cannot_work_are_refused_before_anything_loads(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], says: str) -> None:
    code, _, err = run_entry(capsys, "watch", str(tmp_path), "--base", str(tmp_path), "--once", *extra)
    assert code == 2
    assert says in " ".join(err.split())
