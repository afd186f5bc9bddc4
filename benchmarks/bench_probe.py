"""What a training probe costs: the 33-item probe against the old 11-item one, and beside bare ``generate``.

The model is what the callback sees mid-training: SmolLM2-135M-Instruct (the packaged GGUF through
transformers, de-quantized to float32 on CPU) wrapped in a fresh PEFT LoRA (r=16 on q/k/v/o). Both sides
answer the 11 prompts of the bundled probe battery, greedy, each capped at its item's ``max_tokens``:

* bare: transformers' own batched ``generate``, one left-padded batch per cap (what a hand-written probe does);
* forgegate: ``probe_async`` over the in-memory backend, everything the callback does at a save (run store,
  batched decoding, GLOSS scoring with the loop detector's controls, the probe record).

Rounds alternate so load on a shared machine hits both sides; the best round of each counts. Target: the probe
at most 1.5x the bare generation, so a checkpoint's probe costs about what generating its answers costs.

``--against old`` (issue 37) measures instead what the larger probe costs per checkpoint: ``probe_async`` on the
bundled 33-item battery against the same on the 11 items the probe had before (``OLD_PROBE_IDS``, a subset),
alternating, with the tokens each generated (loop cut-off ends a looping answer as the loop starts, which is what
keeps three times the items from costing three times the time).

    python benchmarks/bench_probe.py [--rounds 3] [--threads N] [--busy 0,1] [--against bare|old]

``--busy`` runs the comparison once per entry with that many CPU-bound processes added (``while True: pass``,
started and stopped by the script), so the probe is measured idle and under load alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from itertools import groupby
from pathlib import Path
from typing import Any

from bench_transformers import run_generate

from forgegate.backends.embedded import bundled_gguf
from forgegate.backends.in_memory import InMemoryBackend
from forgegate.battery import bundled_probe_battery_path, load_battery
from forgegate.battery.build import OLD_PROBE_IDS
from forgegate.core.records import GenerationRequest
from forgegate.training.probe import ProbeTarget, probe_async


def load_model(threads: int | None) -> tuple[Any, Any]:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if threads:
        torch.set_num_threads(threads)
    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    base = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    model = get_peft_model(base, LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj",
                                                                               "o_proj"], task_type="CAUSAL_LM"))
    return model, tokenizer


def probe_requests() -> list[GenerationRequest]:
    battery = load_battery(bundled_probe_battery_path())
    return [GenerationRequest(prompt=item.prompt, max_tokens=item.max_tokens, seed=0, temperature=0.0, chat=True)
            for item in battery.items]


def run_bare(model: Any, tokenizer: Any, requests: list[GenerationRequest]) -> int:
    """One batch per cap through ``generate``; tokens up to each row's end."""
    model.eval()
    ordered = sorted(requests, key=lambda r: r.max_tokens)
    return sum(run_generate(model, tokenizer, group, len(group))
               for group in (list(g) for _, g in groupby(ordered, key=lambda r: r.max_tokens)))


def old_probe_battery(folder: Path) -> Path:
    """The 11-item probe of before issue 37: those lines of the bundled battery, in their old order."""
    lines = {json.loads(line)["id"]: line for line in
             bundled_probe_battery_path().read_text(encoding="utf-8").splitlines()}
    path = folder / "gloss-v2-probe-11.jsonl"
    path.write_text("".join(lines[item_id] + "\n" for item_id in OLD_PROBE_IDS), encoding="utf-8")
    return path


def run_probe(model: Any, tokenizer: Any, store: Path, round_number: int, battery: Path | None = None) -> str:
    backend = InMemoryBackend(model, tokenizer, label=f"bench round {round_number}")
    record = asyncio.run(probe_async(ProbeTarget(round_number, None, None, None, "callback"),
                                     label=backend.label, store_dir=store / str(round_number),
                                     model_in_memory=backend, battery=battery))
    assert record.answered == record.items, record
    with sqlite3.connect(record.store) as db:  # the tokens it generated: the same work as the bare side
        tokens = int(db.execute("SELECT SUM(tokens) FROM responses").fetchone()[0])
    return f"{record.items} items, {tokens} tokens, loops {record.loops}"


def compare_old(model: Any, tokenizer: Any, rounds: int) -> tuple[float, float]:
    """Best seconds of the old 11-item probe and of the bundled 33-item one over ``rounds`` alternating rounds."""
    best = {"old": float("inf"), "new": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        old = old_probe_battery(Path(tmp))
        timed("warm-up", lambda: run_bare(model, tokenizer, probe_requests()[:1]))
        for n in range(1, rounds + 1):
            print(f"round {n}")
            best["old"] = min(best["old"], timed("11 items", lambda n=n: run_probe(
                model, tokenizer, Path(tmp) / "old", n, old)))
            best["new"] = min(best["new"], timed("33 items", lambda n=n: run_probe(
                model, tokenizer, Path(tmp) / "new", n)))
    return best["old"], best["new"]


def timed(label: str, run: Any) -> float:
    started = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - started
    print(f"  {label:<10} {seconds:7.2f} s ({result})", flush=True)
    return seconds


def compare(model: Any, tokenizer: Any, requests: list[GenerationRequest], rounds: int) -> tuple[float, float]:
    """Best seconds of the bare side and of forgegate's probe over ``rounds`` alternating rounds."""
    best = {"bare": float("inf"), "forgegate": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        timed("warm-up", lambda: run_bare(model, tokenizer, requests[:1]))
        for round_number in range(1, rounds + 1):
            print(f"round {round_number}")
            best["bare"] = min(best["bare"], timed("bare", lambda: f"{run_bare(model, tokenizer, requests)} tokens"))
            best["forgegate"] = min(best["forgegate"], timed("forgegate", lambda n=round_number: (
                f"{run_probe(model, tokenizer, Path(tmp), n)}, probed and scored")))
    return best["bare"], best["forgegate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--busy", default="0", help="CPU-bound processes to add, one comparison each (0,1)")
    parser.add_argument("--against", choices=("bare", "old"), default="bare",
                        help="bare: transformers' generate; old: the 11-item probe of before issue 37")
    args = parser.parse_args()
    model, tokenizer = load_model(args.threads)
    requests = probe_requests()
    print(f"SmolLM2-135M-Instruct + LoRA r=16, cpu float32, {len(requests)} probe prompts, caps "
          f"{sorted({r.max_tokens for r in requests})}")
    summary = []
    for busy in (int(part) for part in args.busy.split(",")):
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            print(f"\n{busy} busy process(es) added; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            if args.against == "old":
                old, new = compare_old(model, tokenizer, args.rounds)
            else:
                bare, ours = compare(model, tokenizer, requests, args.rounds)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        if args.against == "old":
            summary.append(f"{busy} busy: 11-item probe {old:.2f} s, 33-item probe {new:.2f} s: {new / old:.2f}x "
                           f"per checkpoint")
        else:
            summary.append(f"{busy} busy: bare {bare:.2f} s, forgegate {ours:.2f} s: forgegate / bare = "
                           f"{ours / bare:.2f}x (target <= 1.5x)")
    print("\nbest of each:\n" + "\n".join(summary))


if __name__ == "__main__":
    main()
