"""forgegate's eval path on the embedded backend vs the bare llama-cpp-python call, idle and under load.

The same bundled-battery prompts, capped at the same ``max_tokens``, with the same seed and
temperature, each side in a fresh process as a user runs them (libgomp reads its wait policy once
per process, so one process cannot try two):

* bare: ``Llama(...)`` then ``Llama.create_chat_completion`` in the main thread (KV cache reset before
  each prompt as forgegate does), in three configurations: 2 threads with libgomp's default
  spin, 2 threads with ``OMP_WAIT_POLICY=PASSIVE``, 1 thread. The best of them in each load condition
  is what forgegate is held to;
* forgegate: the runner ``forgegate eval`` uses, on the embedded backend with its defaults (run store,
  engine, concurrency 4, model load, digest: everything ``forgegate eval`` does).

Both clocks start before the model loads (each process reads the same GGUF, from the page cache after
the first) and stop when the last answer is in; interpreter start-up and imports are off both clocks.

Three load conditions: nothing added, then one and two CPU-bound processes this script starts and
stops (``while True: pass``). Sides alternate within each condition so drift on a shared machine hits
both; the median of the rounds counts. Target: forgegate >= 0.9x the best bare configuration in each
condition. A side that runs past ``--timeout`` is stopped and counted at the most it could have done.

    python benchmarks/bench_embedded.py [--prompts 4] [--max-tokens 160] [--rounds 3] [--loads 0,1,2]
    python benchmarks/bench_embedded.py --arms 2     # a plan's two embedded arms on one GGUF, same conditions
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from forgegate.backends import BackendConfig
from forgegate.backends.embedded import EMBEDDED_THREADS, bundled_gguf
from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.pipeline.session.eval_session import EvalSpec
from forgegate.run import ArmSpec, generate, plan_requests
from forgegate.store.run_meta import RunMeta

SIDES: dict[str, tuple[dict[str, str], int]] = {
    "forgegate": ({}, EMBEDDED_THREADS),
    "bare 2 threads, libgomp default spin": ({"OMP_WAIT_POLICY": "", "GOMP_SPINCOUNT": ""}, 2),
    "bare 2 threads, OMP_WAIT_POLICY=PASSIVE": ({"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": ""}, 2),
    "bare 1 thread": ({"OMP_WAIT_POLICY": "", "GOMP_SPINCOUNT": ""}, 1),
}
"""Each side's environment ("" removes a variable) and thread count; forgegate runs with the caller's environment."""


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


def forgegate_round(battery: Battery, seed: int, temperature: float, concurrency: int, arms: int = 1) -> int:
    """``forgegate eval``'s generation (the one runner, as ``run_session`` calls it) on a fresh store; tokens.
    With ``arms`` > 1 it is a plan's: that many embedded arms on the same GGUF, each answering every prompt."""
    spec = EvalSpec(kind="eval", backend="embedded", config=BackendConfig(), battery=battery,
                    seed=seed, temperature=temperature, top_p=1.0, system=None)
    arm = spec.arm()
    every = [arm] if arms == 1 else [ArmSpec(f"arm-{n}", arm.backend, arm.config) for n in range(arms)]
    with tempfile.TemporaryDirectory() as store:
        outcome = asyncio.run(generate(
            Path(store) / f"{spec.run_id}.sqlite",
            identity=RunMeta.model_validate({**spec.identity(), "run_id": spec.run_id}),
            metadata=RunMeta(battery_path=str(spec.battery.path)), arms=every,
            planned=plan_requests(every, spec.items(), [spec.seed], spec.sampling()),
            concurrency=concurrency, quiet=True, per_arm_digests=False))
    if outcome.summary.failed:
        raise SystemExit(f"forgegate: {outcome.summary.failed} request(s) failed")
    return outcome.summary.tokens


def child(args: argparse.Namespace) -> None:
    """One side, once, in this fresh process: prints ``{"tokens", "wall", "wait"}`` as JSON (the OpenMP wait it ran)."""
    battery = bench_battery(args.prompts, args.max_tokens)
    if args.child == "forgegate":
        from forgegate.backends.embedded_pool import choose_openmp_wait

        choose_openmp_wait()  # as the backend does, before the import
        import llama_cpp  # noqa: F401  (imports are off both clocks)

        started = time.perf_counter()
        tokens = forgegate_round(battery, args.seed, args.temperature, args.concurrency, args.arms)
    else:
        from llama_cpp import Llama

        started = time.perf_counter()
        llm = Llama(model_path=str(bundled_gguf()), n_ctx=2048, n_threads=args.threads,
                    n_threads_batch=args.threads, verbose=False)
        tokens = sum(bare_round(llm, battery, args.seed, args.temperature) for _ in range(args.arms))
    wait = ", ".join(f"{name}={os.environ[name]}" for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
                     if os.environ.get(name)) or "libgomp default"
    print(json.dumps({"tokens": tokens, "wall": time.perf_counter() - started, "wait": wait}))


def run_side(side: str, args: argparse.Namespace) -> float:
    """Tokens per second of one side in a fresh process (an upper bound if it ran past the timeout)."""
    extra, threads = SIDES[side]
    env = dict(os.environ)
    for key, value in extra.items():
        if value:
            env[key] = value
        else:
            env.pop(key, None)
    command = [sys.executable, __file__, "--child", "forgegate" if side.startswith("forgegate") else "bare",
               "--threads", str(threads), "--prompts", str(args.prompts), "--max-tokens", str(args.max_tokens),
               "--seed", str(args.seed), "--temperature", str(args.temperature),
               "--concurrency", str(args.concurrency), "--arms", str(args.arms)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout, check=True)
    except subprocess.TimeoutExpired:
        bound = args.arms * args.prompts * args.max_tokens / args.timeout
        print(f"  {side:42}: stopped after {args.timeout:.0f} s (< {bound:.1f} tokens/s)", flush=True)
        return bound
    result = json.loads(done.stdout.strip().splitlines()[-1])
    rate = float(result["tokens"]) / float(result["wall"])
    print(f"  {side:42}: {result['tokens']} tokens in {result['wall']:6.2f} s = {rate:6.1f} tokens/s "
          f"({result['wait']})", flush=True)
    return rate


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def condition(load: int, args: argparse.Namespace) -> tuple[float, str, float]:
    """Median tokens/s of forgegate and of the best bare side with ``load`` busy processes running."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        print(f"\n{load} busy process(es) added; load average before: {loadavg()}", flush=True)
        rates: dict[str, list[float]] = {side: [] for side in SIDES}
        order = list(SIDES)
        for round_no in range(args.rounds):
            for side in order if round_no % 2 == 0 else order[::-1]:
                rates[side].append(run_side(side, args))
        print(f"  load average after: {loadavg()}")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    medians = {side: statistics.median(values) for side, values in rates.items()}
    best = max((side for side in SIDES if not side.startswith("forgegate")), key=lambda side: medians[side])
    return medians["forgegate"], best, medians[best]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loads", default="0,1,2", help="busy processes to add, one condition each")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds one side may run")
    parser.add_argument("--concurrency", type=int, default=4, help="forgegate eval's default")
    parser.add_argument("--arms", type=int, default=1,
                        help="a plan's embedded arms on the same GGUF (bare answers every prompt that many times)")
    parser.add_argument("--child", choices=("bare", "forgegate"), help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=EMBEDDED_THREADS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    import llama_cpp

    print(f"{os.cpu_count()} cores; llama.cpp: {llama_cpp.llama_print_system_info().decode().strip()}")
    print(f"{args.prompts} prompts x {args.max_tokens} tokens max x {args.arms} arm(s), {args.rounds} alternating "
          f"rounds, a fresh "
          f"process each; OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}, "
          f"GOMP_SPINCOUNT={os.environ.get('GOMP_SPINCOUNT', '(unset)')}")
    summary = []
    for load in (int(part) for part in args.loads.split(",")):
        forgegate, best, bare = condition(load, args)
        summary.append(f"{load} busy: forgegate {forgegate:.1f} tokens/s, best bare {bare:.1f} ({best}): "
                       f"{forgegate / bare:.3f}x (target >= 0.9)")
    print("\nmedians:\n" + "\n".join(summary))


if __name__ == "__main__":
    main()
