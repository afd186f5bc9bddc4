"""The ``checkpoint-N/`` folders of a training output folder, and whether each is completely written.

A Hugging Face ``Trainer`` saves a checkpoint in this order (``Trainer._save_checkpoint``): the
model (a PEFT adapter: ``adapter_config.json`` and ``adapter_model.safetensors``; a full model:
``config.json`` and its weights), then the optimizer, scheduler and RNG state, and
``trainer_state.json`` last, written in place (not renamed into place). So a checkpoint is ready
to probe when ``trainer_state.json`` is there and parses, every weight file is whole (a
safetensors file as long as its own header says; a torch ``.bin`` a complete zip), and nothing in
the folder changed between two looks (a copy or sync that writes files in another order is waited
for too). Anything short of that is *waiting*, with the reason, never an error: the writer is
still at work. Only the standard library and the project's strict JSON reader are used here:
``forgegate watch`` looks often.
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_text_or_input_error

CHECKPOINT_PREFIX = "checkpoint"
"""transformers' ``PREFIX_CHECKPOINT_DIR`` (not imported from there: that would load transformers)."""
CHECKPOINT_NAME = re.compile(rf"^{CHECKPOINT_PREFIX}-(\d+)$")
"""A checkpoint folder's name: ``checkpoint-<global step>``."""
TRAINER_STATE = "trainer_state.json"
ADAPTER_CONFIG = "adapter_config.json"
MODEL_CONFIG = "config.json"
ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")
MODEL_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
WEIGHT_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
MAX_SAFETENSORS_HEADER = 100_000_000
"""The safetensors format's own limit on its JSON header (``MAX_HEADER_SIZE``): a longer declared header is
not read into memory (a 2.5 GB sparse file would be)."""

Snapshot = tuple[tuple[str, int, int], ...]
"""(relative name, size, mtime in ns) of every file in a checkpoint folder: two equal looks mean it is still."""


@dataclass(frozen=True)
class Checkpoint:
    name: str
    step: int
    path: Path


@dataclass(frozen=True)
class Ready:
    """A completely written checkpoint and what its trainer state says about its step."""

    kind: Literal["adapter", "full"]
    epoch: float | None
    eval_loss: float | None
    snapshot: Snapshot


@dataclass(frozen=True)
class Waiting:
    """A checkpoint still being written: what it waits for."""

    reason: str


def checkpoint_name(step: int) -> str:
    """The folder name the Trainer saves step ``step`` under."""
    return f"{CHECKPOINT_PREFIX}-{step}"


def list_checkpoints(output_dir: Path) -> list[Checkpoint]:
    """The ``checkpoint-N`` folders of ``output_dir``, in step order."""
    found = []
    for path in Path(output_dir).iterdir():
        match = CHECKPOINT_NAME.match(path.name)
        if match and path.is_dir():
            found.append(Checkpoint(path.name, int(match[1]), path))
    return sorted(found, key=lambda c: c.step)


def snapshot(folder: Path) -> Snapshot:
    """Every file's name, size and modification time (a file that vanishes meanwhile is left out)."""
    entries = []
    for path in folder.rglob("*"):
        try:
            info = path.stat()
        except OSError:
            continue
        if path.is_file():
            entries.append((str(path.relative_to(folder)), info.st_size, info.st_mtime_ns))
    return tuple(sorted(entries))


def inspect_checkpoint(checkpoint: Checkpoint) -> Ready | Waiting:
    """Whether ``checkpoint`` is completely written (one look; stillness across looks is the caller's)."""
    folder = checkpoint.path
    if (folder / ADAPTER_CONFIG).is_file():
        kind: Literal["adapter", "full"] = "adapter"
        weights, problem = _weight_files(folder, ADAPTER_WEIGHTS, ())
    elif (folder / MODEL_CONFIG).is_file():
        kind = "full"
        weights, problem = _weight_files(folder, MODEL_WEIGHTS, WEIGHT_INDEXES)
    else:
        return Waiting(f"no {ADAPTER_CONFIG} (a PEFT adapter) or {MODEL_CONFIG} (a full model) yet")
    if problem is not None:
        return Waiting(problem)
    for path in weights:
        if (problem := weight_file_problem(path)) is not None:
            return Waiting(problem)
    state = read_state(folder / TRAINER_STATE)
    if isinstance(state, str):
        return Waiting(state)
    history = state.get("log_history")
    epoch = state.get("epoch")
    finite_epoch = isinstance(epoch, int | float) and not isinstance(epoch, bool) and math.isfinite(epoch)
    return Ready(kind, float(epoch) if finite_epoch and isinstance(epoch, int | float) else None,
                 eval_loss_at(history if isinstance(history, list) else [], checkpoint.step), snapshot(folder))


def read_state(path: Path) -> dict[str, object] | str:
    """The trainer state as a dict, or why it cannot be read yet (absent, or still being written)."""
    if not path.exists():
        return f"no {TRAINER_STATE} yet (the Trainer writes it last)"
    try:
        text = read_text_or_input_error(path, what=TRAINER_STATE)
    except InputError as exc:
        return f"{TRAINER_STATE} cannot be read yet ({exc})"
    try:
        state = parse_json_strict(text)
    except json.JSONDecodeError:
        return f"{TRAINER_STATE} is still being written ({len(text)} bytes, not yet whole JSON)"
    except JsonProblem as exc:
        return f"{TRAINER_STATE} is not a Trainer state ({exc.message})"
    if not isinstance(state, dict):
        return f"{TRAINER_STATE} is not a Trainer state (a JSON object)"
    return state


def eval_loss_at(log_history: Sequence[object], step: int) -> float | None:
    """The eval_loss the trainer logged at ``step`` (the last one, when it logged two), or None."""
    for entry in reversed(log_history):
        loss = entry.get("eval_loss") if isinstance(entry, dict) else None
        if (isinstance(entry, dict) and entry.get("step") == step and not isinstance(entry.get("step"), bool)
                and isinstance(loss, int | float) and not isinstance(loss, bool) and math.isfinite(loss)):
            return float(loss)
    return None


def _weight_files(folder: Path, singles: tuple[str, ...], indexes: tuple[str, ...]) -> tuple[list[Path], str | None]:
    """The weight files the folder's model is made of, or what is missing."""
    for name in indexes:
        index = folder / name
        if index.is_file():
            try:
                shards = sorted(set(parse_json_strict(read_text_or_input_error(index, what=name))["weight_map"]
                                    .values()))
            except (InputError, ValueError, KeyError, TypeError, AttributeError):
                return [], f"{name} is still being written (not yet a whole weight index)"
            missing = [shard for shard in shards if not (folder / shard).is_file()]
            if missing:
                return [], f"{len(missing)} of {len(shards)} weight shards not there yet (first: {missing[0]})"
            return [folder / shard for shard in shards], None
    present = [folder / name for name in singles if (folder / name).is_file()]
    if not present:
        return [], f"no weights yet ({' or '.join(singles)})"
    return present[:1], None


def weight_file_problem(path: Path) -> str | None:
    """Why ``path`` is not a whole weight file yet (cheap: a header and the file's length), or None."""
    try:
        size = path.stat().st_size
        if path.suffix == ".safetensors":
            with path.open("rb") as handle:
                head = handle.read(8)
                if len(head) < 8:
                    return f"{path.name} is still being written ({size} bytes)"
                (header_len,) = struct.unpack("<Q", head)
                if header_len > MAX_SAFETENSORS_HEADER:
                    return (f"{path.name} declares a {header_len}-byte header, more than safetensors allows "
                            f"({MAX_SAFETENSORS_HEADER}): not a safetensors file")
                if size < 8 + header_len:
                    return f"{path.name} is still being written ({size} bytes, its header alone is {header_len})"
                header = parse_json_strict(handle.read(header_len).decode("utf-8"))
            data = [entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"]
            expected = 8 + header_len + max(data, default=0)
            if size < expected:
                return f"{path.name} is still being written ({size} of {expected} bytes)"
            return None
        if path.suffix == ".bin" and not zipfile.is_zipfile(path):
            return f"{path.name} is still being written ({size} bytes, not yet a whole torch file)"
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        return f"{path.name} cannot be read whole yet ({exc})"
    return None
