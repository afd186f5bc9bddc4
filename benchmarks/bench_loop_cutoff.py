"""The loop cut-off: `forgegate eval` on a model that loops, with and without cutting loops off as they start.

The model is the bundled SmolLM2-135M-Instruct (embedded backend, greedy, seed 0); the battery is small and
made of prompts it answers with a loop at temperature 0 (they come from tests/data/loops/smollm2_labelled.jsonl,
where a person labelled its real outputs), plus two it answers plainly, each with a 256-token cap. Each arm is
a separate `forgegate eval` process (`python -m forgegate.cli.main eval`) with its own run store, as a user runs
it (`--no-loop-cutoff` for the arm without), so both pay the same model load. Printed: tokens generated (the
sum of the stored answers' tokens), wall time of each process, the ratios, and whether the verdict is the same
both ways (the gate word and every item's score and first failure label). Exits 1 if the verdicts differ.
Target: at least 3x fewer tokens with the cut-off.

    python benchmarks/bench_loop_cutoff.py [--max-tokens 256] [--rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LOOPING = [
    "⊙ ∎?",
    "ι.ε ΩQ?",
    "αααααα",
    "α.⊢ status?",
    "⊙ ι?",
    "Translate to French: the woman, the woman, the woman",
    "List the days of the week.",
    "Name ten Japanese cities.",
]
PLAIN = ["Translate: the forge is running", "What is 1000 times 3?"]
GATE_CONFIG = """name = "loop-cutoff-bench"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 1
wall_rule = true
[weights]
"LX-LIVE-GEN" = 1.0
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""


def write_inputs(root: Path, cap: int) -> tuple[Path, Path]:
    battery = root / "looping.jsonl"
    rows = [{"category": "LX-LIVE-GEN", "prompt": prompt, "expected": ["NOUS"], "max_tokens": cap,
             "eval_type": "contains"} for prompt in LOOPING + PLAIN]
    battery.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    config = root / "gate.toml"
    config.write_text(GATE_CONFIG, encoding="utf-8")
    return battery, config


def run_arm(root: Path, battery: Path, config: Path, name: str, flags: list[str]) -> tuple[float, dict[str, Any]]:
    out = root / f"{name}.json"
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "forgegate.cli.main", "eval", "--battery", str(battery), "--gate-config", str(config),
         "--store", str(root / name), "--json", str(out), "--quiet", "--concurrency", "1", *flags],
        capture_output=True, text=True, env={**os.environ, "FORGEGATE_HOME": str(root / "home")}, check=False)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        sys.exit(f"{name}: forgegate eval exited {proc.returncode}\n{proc.stderr}")
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return wall, result


def verdict(result: dict[str, Any]) -> tuple[str, list[tuple[str, float | None, str | None]]]:
    return result["gate"], [(i["id"], i["score"], i["failure_mode"]) for i in result["items"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    same = True
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            battery, config = write_inputs(root, args.max_tokens)
            arms = [("with", []), ("without", ["--no-loop-cutoff"])]
            if round_ % 2:
                arms.reverse()
            got = {name: run_arm(root, battery, config, name, flags) for name, flags in arms}
        (wall_on, on), (wall_off, off) = got["with"], got["without"]
        tokens_on = sum(i["tokens"] or 0 for i in on["items"])
        tokens_off = sum(i["tokens"] or 0 for i in off["items"])
        cut = [i["id"] for i in on["items"] if i["finish"] == "loop"]
        labelled = [i["id"] for i in off["items"] if i["failure_mode"] in ("RUNAWAY_LOOP", "IDENTITY_LOOP")]
        same = same and verdict(on) == verdict(off)
        print(f"round {round_ + 1}: {len(on['items'])} items, cap {args.max_tokens}; loops labelled without the "
              f"cut-off: {len(labelled)}, cut off with it: {len(cut)}")
        print(f"  tokens  with {tokens_on:6d}  without {tokens_off:6d}  -> {tokens_off / max(tokens_on, 1):.2f}x "
              "fewer (target >= 3x)")
        print(f"  wall s  with {wall_on:6.1f}  without {wall_off:6.1f}  -> {wall_off / wall_on:.2f}x faster "
              "(whole process, model load included)")
        print(f"  saved (estimate recorded in the result): {on['loop_cutoff']['tokens_saved_estimate']} tokens")
        print(f"  verdict with {verdict(on)[0]}, without {verdict(off)[0]}; every item's score and label the same: "
              f"{verdict(on) == verdict(off)}")
        if verdict(on) != verdict(off):
            for a, b in zip(verdict(on)[1], verdict(off)[1], strict=True):
                if a != b:
                    print(f"    differs: with {a}, without {b}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
