"""Fixtures for the audit tests: small renamed slices of real novels and built pairs.

The source tree holds chapters 1-8 of Pride and Prejudice and chapters I-II of Wuthering
Heights (from data/texts/). The renamed tree is the same text with every RENAME_MAP entry
replaced whole-word, except ``Meryton``: the map lists it but this rename kept it, like a
real place name the rename held. Pairs are built from consecutive paragraphs of the
renamed text, then PLANTED leaks are appended by plain string concatenation, so the
expected counts follow from the construction, not from the matcher under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from forgegate.gate.audit import audit_verdict

if TYPE_CHECKING:
    from forgegate.audit import ContaminationReport, FormatReport, LeakReport, LoopReport
    from forgegate.core.verdict import Gate

REPO = Path(__file__).resolve().parents[1]
TEXTS = REPO / "data" / "texts"

RENAME_MAP = {
    "Elizabeth": "Margery", "Jane": "Cecily", "Darcy": "Holloway", "Bingley": "Ashcombe",
    "Bennet": "Fairley", "Lizzy": "Meg", "Lydia": "Rosamund", "Meryton": "Brackley",
    "Heathcliff": "Blackmoor", "Lockwood": "Ainsley", "Joseph": "Tobias", "Hareton": "Gideon",
}
KEPT_BY_RENAME = {"Meryton"}
SLICES = {  # file -> (first line, last line), 1-based inclusive
    "austen-pride-and-prejudice.txt": (38, 1409),
    "ebronte-wuthering-heights.txt": (43, 649),
}
PREFIX = "Write the next beat of the story after this passage:\n"
# (split, index within split, half, appended text); expected counts below follow from these
PLANTED = [
    ("train", 2, "instruction", " Elizabeth smiled."),
    ("train", 5, "instruction", " Mr. Darcy bowed."),
    ("train", 7, "instruction", " Elizabeth and Jane walked on."),
    ("train", 12, "response", " Heathcliff scowled."),
    ("train", 20, "instruction", " Lizzy!"),
    ("train", 20, "response", " Lizzy laughed."),
    ("train", 3, "instruction", " Janet and Annesley came too, and the Bennets' cousin Elizabetha."),
    ("val", 1, "instruction", " Janet arrived at Meryton."),
]
EXPECTED_SPLITS = {
    "train": {"pairs": 40, "leaking_instruction": 4, "leaking_response": 2,
              "names": {"Elizabeth": 2, "Darcy": 1, "Heathcliff": 1, "Jane": 1, "Lizzy": 1}},
    "val": {"pairs": 10, "leaking_instruction": 0, "leaking_response": 0, "names": {}},
}


def source_slice(name: str) -> str:
    first, last = SLICES[name]
    lines = (TEXTS / name).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1: last]) + "\n"


def apply_rename(text: str) -> str:
    for canonical, replacement in RENAME_MAP.items():
        if canonical not in KEPT_BY_RENAME:
            text = re.sub(rf"\b{canonical}\b", replacement, text)
    return text


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if len(p.split()) >= 12]


def build_leak_fixture(root: Path) -> dict[str, Path]:
    """Write source/, renamed/, pairs.jsonl and rename_map.json under ``root``; return their paths."""
    source, renamed = root / "source", root / "renamed"
    source.mkdir(parents=True)
    renamed.mkdir(parents=True)
    renamed_paras: list[str] = []
    for name in SLICES:
        text = source_slice(name)
        (source / name).write_text(text, encoding="utf-8")
        (renamed / name).write_text(apply_rename(text), encoding="utf-8")
        renamed_paras.extend(paragraphs(apply_rename(text)))
    rows: dict[str, list[dict[str, str]]] = {"train": [], "val": []}
    for split, offset, count in (("train", 0, 40), ("val", 60, 10)):
        for i in range(count):
            rows[split].append({"split": split, "instruction": PREFIX + renamed_paras[offset + i],
                                "response": renamed_paras[offset + i + 1]})
    for split, index, half, extra in PLANTED:
        rows[split][index][half] += extra
    pairs = root / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                             for split in ("train", "val") for r in rows[split]), encoding="utf-8")
    rename_map = root / "rename_map.json"
    rename_map.write_text(json.dumps(RENAME_MAP, indent=1), encoding="utf-8")
    return {"source": source, "renamed": renamed, "pairs": pairs, "map": rename_map}


def gate_of(report: LeakReport | LoopReport | FormatReport | ContaminationReport) -> Gate:
    """The gate word ``forgegate.gate.audit`` gives an audit report (what the CLI prints and exits by)."""
    return audit_verdict(report.controls, report.finding).gate
