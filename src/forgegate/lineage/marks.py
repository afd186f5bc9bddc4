"""Battery marks in the run store: which battery a lineage found a false positive, and the runs that clear a mark.

GLOSS v2, invariant 6: "If a model passes eval but fails live testing, the eval battery is broken and must be
updated before the next forge." ``graduate`` records that in its lineage (EVAL_FALSE_POSITIVE) and, so that a
plain ``forgegate eval`` on the same bytes cannot print PASS without a word, appends a mark to the store folder
it ran in (``battery-marks.jsonl`` beside the run files). ``eval`` looks its battery's sha256 up there and
carries the versions in its output and JSON (``battery.marked_false_positive``). A replacement battery clears a
mark only by FAILing the checkpoint that slipped through: :func:`stored_fails` finds that run in the store by
battery sha256 (the model is matched by digest in ``forgegate.gate.battery_trust``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from forgegate.core.verdict import Gate
from forgegate.errors import StoreError
from forgegate.jsonio import read_bytes_or_input_error
from forgegate.store import RunStore, list_runs

MARKS_FILE = "battery-marks.jsonl"


class BatteryMark(BaseModel):
    """One checkpoint that passed ``battery_sha256`` and failed its live test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    battery_sha256: str
    version: str
    model: str | None
    model_digest: str | None
    lineage: str


def append_mark(store_dir: Path, mark: BatteryMark) -> None:
    """Add ``mark`` to the store folder's marks (one JSON line)."""
    with (store_dir / MARKS_FILE).open("a", encoding="utf-8") as out:
        out.write(json.dumps(mark.model_dump(), ensure_ascii=False) + "\n")


def marks_for(store_dir: Path, battery_sha256: str) -> list[BatteryMark]:
    """The marks on this battery in the store folder (none when the folder has no marks file). A line that does
    not read as a mark is skipped: a mark only adds a warning, it never decides a verdict."""
    path = store_dir / MARKS_FILE
    if not path.is_file():
        return []
    found = []
    text = read_bytes_or_input_error(path, what="battery marks file").decode("utf-8", "replace")
    for line in text.split("\n"):
        try:
            mark = BatteryMark.model_validate_json(line)
        except ValidationError:
            continue
        if mark.battery_sha256 == battery_sha256:
            found.append(mark)
    return found


@dataclass(frozen=True)
class StoredFail:
    """An eval run in the store that FAILed a model on a battery: evidence a replacement battery catches a
    checkpoint that slipped through (read like a lineage record by ``forgegate.gate.battery_trust``)."""

    version: str
    battery_sha256: str
    model: str | None
    model_digest: str | None
    battery_gate: Gate
    failure_modes: tuple[str, ...] = ()


def stored_fails(store_dir: Path, battery_sha256: str) -> list[StoredFail]:
    """The store's eval runs of this battery whose last verdict was FAIL (a damaged store file is skipped: it
    can only fail to clear a mark, never clear one)."""
    found = []
    for path in list_runs(store_dir):
        try:
            with RunStore.open(path, readonly=True) as opened:
                meta = opened.meta()
        except StoreError:
            continue
        if meta.kind == "eval" and meta.battery_sha256 == battery_sha256 and meta.last_gate == Gate.FAIL.value:
            found.append(StoredFail(f"run {path.stem}", battery_sha256, meta.model, meta.model_digest,
                                    Gate(meta.last_gate)))
    return found
