"""Test helper: a small valid three-arm plan with its input files, written into a folder."""

from __future__ import annotations

import json
from pathlib import Path

PLAN = """\
name = "demo"
author = "Austen"
seeds = [1, 2]

[sampling]
temperature = 0.7
max_tokens = 40

[fixture]
path = "fixture.jsonl"

[[arms]]
name = "base"
backend = "transformers"
model = "models/base"
role = "control"

[[arms]]
name = "ckpt1"
backend = "transformers"
model = "models/base"
adapter = "models/ckpt1"
role = "candidate"

[instruments.voice]
reference = "reference.txt"
segment_words = 100

[instruments.memorization]
corpus = ["corpus.txt"]
control_seed = 7
hit_rate_margin = 0.0
max_margin = 0

[instruments.damage]
band = [5, 60]

[[comparisons]]
control = "base"
candidate = "ckpt1"
primary = "voice.delta_gap"
"""


def write_plan_folder(folder: Path, text: str = PLAN) -> Path:
    """Write the plan and every file it names; return the plan's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fixture.jsonl").write_text(
        "".join(json.dumps({"id": f"b{i}", "prompt": f"Write beat {i}."}) + "\n" for i in range(3)))
    (folder / "reference.txt").write_text("It is a truth universally acknowledged. " * 50)
    (folder / "corpus.txt").write_text("The renamed corpus sentence goes on and on here. " * 20)
    (folder / "models" / "ckpt1").mkdir(parents=True, exist_ok=True)  # the arm's adapter folder (plan check)
    (folder / "models" / "ckpt1" / "adapter_config.json").write_text("{}")
    plan = folder / "plan.toml"
    plan.write_text(text)
    return plan


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line number of the ``occurrence``-th line containing ``needle``."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not found")


def damage_plan_text(name: str, arms_toml: str, *, control: str, candidate: str, temperature: float = 0.0,
                     max_tokens: int = 16) -> str:
    """A plan over ``fixture.jsonl`` with the given ``[[arms]]`` tables, two seeds and only the damage axis:
    the smallest plan that makes every arm generate (backend tests use it to drive ``forgegate run``)."""
    return f"""name = "{name}"
seeds = [1, 2]

[sampling]
temperature = {temperature}
max_tokens = {max_tokens}

[fixture]
path = "fixture.jsonl"
{arms_toml}
[instruments.damage]
band = [1, 60]

[[comparisons]]
control = "{control}"
candidate = "{candidate}"
primary = "damage.ran_on"
"""


def audit_json(gate: str, finding: str, *, planted: tuple[int, int] = (6, 6),
               train_leaks: int = 0) -> dict[str, object]:
    """A ``forgegate audit leak --json`` result as a plan's [leak_audit] names it (the spec's clean val split;
    ``train_leaks`` instruction halves of the train split naming a removed name, as the spec's 70 of 7,094)."""
    train = {"pairs": 7094, "leaking_instruction": train_leaks, "leaking_response": 0,
             "names": {"Santiago": train_leaks} if train_leaks else {}}
    return {"kind": "leak_audit", "schema_version": 1, "gate": gate, "finding": finding,
            "reasons": [{"rule": "nothing found", "outcome": gate, "detail": finding}],
            "splits": {"val": {"pairs": 200, "leaking_instruction": 0, "leaking_response": 0, "names": {}},
                       "train": train},
            "controls": {"surfaces_found": [941, 941], "nonce_absent": True, "planted_detected": list(planted)}}
