"""forgegate's eval path on the embedded backend vs the bare llama-cpp-python call, in one process.

The same bundled-battery prompts, capped at the same ``max_tokens``, with the same seed,
temperature and thread count: once through ``Llama.create_chat_completion`` called
directly in the main thread (loaded once, outside the clock, KV cache reset before each
prompt as forgegate does so both sides do the same work), once through
the runner ``forgegate eval`` uses, with the embedded backend (run store, engine, concurrency, loading the
model, digest: everything ``forgegate eval`` does). Tokens per second for each and their
ratio; target: forgegate >= 0.9x the bare call. Rounds alternate so drift on a shared
machine hits both sides; the best round of each side counts, and
tokens per CPU second (all rounds) are printed too: wall time on a shared machine is mostly the load.

libgomp reads its wait policy once per process, when llama_cpp loads, so the bare call
runs under the same OpenMP setting forgegate chooses (printed first).

    python benchmarks/bench_embedded.py [--prompts 8] [--max-tokens 160] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from forgegate.backends import BackendConfig
from forgegate.backends.embedded import EMBEDDED_THREADS, bundled_gguf
from forgegate.backends.embedded_pool import prefer_passive_openmp
from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.pipeline.eval_session import EvalSpec
from forgegate.run import generate, plan_requests


def bench_battery(prompts: int, max_tokens: int) -> Battery:
    """``prompts`` items spread over the bundled battery (every category gets a say), capped at ``max_tokens``."""
    battery = load_battery(bundled_battery_path())
    step = max(1, len(battery.items) // prompts)
    items = tuple(item.model_copy(update={"max_tokens": max_tokens}) for item in battery.items[::step][:prompts])
    return Battery(path=battery.path, sha256=battery.sha256, items=items)


def bare_round(llm: Any, battery: Battery, seed: int, temperature: float) -> int:
    """The least a caller can do: one non-streamed chat completion per prompt; returns tokens generated."""
    tokens = 0
    for item in battery.items:
        llm.reset()
        response = llm.create_chat_completion(messages=[{"role": "user", "content": item.prompt}],
                                              max_tokens=item.max_tokens, temperature=temperature, top_p=1.0,
                                              seed=seed)
        tokens += int(response["usage"]["completion_tokens"])
    return tokens


def forgegate_round(battery: Battery, seed: int, temperature: float, threads: int, concurrency: int) -> int:
    """``forgegate eval``'s generation (the one runner, as ``run_session`` calls it) on a fresh store; tokens."""
    spec = EvalSpec(kind="eval", backend="embedded", config=BackendConfig(n_threads=threads), battery=battery,
                    seed=seed, temperature=temperature, top_p=1.0, system=None)
    arm = spec.arm()
    with tempfile.TemporaryDirectory() as store:
        outcome = asyncio.run(generate(
            Path(store) / f"{spec.run_id}.sqlite", identity={**spec.identity(), "run_id": spec.run_id},
            metadata={"battery_path": str(spec.battery.path)}, arms=[arm],
            planned=plan_requests([arm], spec.items(), [spec.seed], spec.sampling()),
            concurrency=concurrency, quiet=True, per_arm_digests=False))
    if outcome.summary.failed:
        raise SystemExit(f"forgegate: {outcome.summary.failed} request(s) failed")
    return outcome.summary.tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=EMBEDDED_THREADS)
    parser.add_argument("--concurrency", type=int, default=4, help="forgegate eval's default")
    args = parser.parse_args()
    prefer_passive_openmp()
    from llama_cpp import Llama

    print(f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(libgomp default)')}, "
          f"{os.cpu_count()} cores, n_threads={args.threads}")
    battery = bench_battery(args.prompts, args.max_tokens)
    llm = Llama(model_path=str(bundled_gguf()), n_ctx=2048, n_threads=args.threads, verbose=False)
    bare_round(llm, bench_battery(2, 16), args.seed, args.temperature)  # warm-up: page the weights in
    best: dict[str, float] = {}
    cpu: dict[str, list[float]] = {"bare": [0.0, 0.0], "forgegate": [0.0, 0.0]}  # CPU seconds, tokens
    for round_no in range(args.rounds):
        for side in (("bare", "forgegate") if round_no % 2 == 0 else ("forgegate", "bare")):
            started, cpu_started = time.perf_counter(), time.process_time()
            if side == "bare":
                tokens = bare_round(llm, battery, args.seed, args.temperature)
            else:
                tokens = forgegate_round(battery, args.seed, args.temperature, args.threads, args.concurrency)
            wall, used = time.perf_counter() - started, time.process_time() - cpu_started
            print(f"round {round_no} {side:9}: {tokens} tokens in {wall:6.2f} s = {tokens / wall:6.1f} tokens/s "
                  f"({used:.2f} s CPU)")
            best[side] = max(best.get(side, 0.0), tokens / wall)
            cpu[side][0] += used
            cpu[side][1] += tokens
    per_cpu = {side: tokens / seconds for side, (seconds, tokens) in cpu.items()}
    print(f"\n{len(battery.items)} prompts x {args.max_tokens} tokens max, best round of {args.rounds}: "
          f"bare {best['bare']:.1f} tokens/s, forgegate {best['forgegate']:.1f} tokens/s")
    print(f"forgegate / bare = {best['forgegate'] / best['bare']:.3f}x (target >= 0.9)")
    print(f"per CPU second (steadier on a shared machine): bare {per_cpu['bare']:.1f} tokens, forgegate "
          f"{per_cpu['forgegate']:.1f} tokens = {per_cpu['forgegate'] / per_cpu['bare']:.3f}x")

if __name__ == "__main__":
    main()
