"""forgegate's generation path vs a bare async httpx loop, on a real llama.cpp server.

Both send the bundled battery's prompts to the same `python -m llama_cpp.server` (the embedded
SmolLM2 GGUF), streaming, with the same caps, seed and concurrency. The server runs with
``--interrupt_requests False``: by default llama-cpp-python's server cuts the running stream
whenever another request arrives, which turns any concurrency into retries. forgegate's wall time is
printed as a ratio of the bare loop's (target <= 1.05): the store, retries, cap and progress
must cost next to nothing beside generation. Rounds alternate so drift hits both sides.

    python benchmarks/bench_eval_vs_bare.py [--concurrency 4] [--rounds 2] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from forgegate.run.eval_generate import EvalSpec, generate_eval

from forgegate.backends import BackendConfig
from forgegate.backends.embedded import bundled_gguf
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.battery.schema import BatteryItem


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()),
                             "--host", "127.0.0.1", "--port", str(port),
                             "--interrupt_requests", "False"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("llama.cpp server did not start")


async def bare_loop(base: str, items: list[BatteryItem], concurrency: int, seed: int) -> int:
    """The baseline: the least a client can do: stream each request and count the chunks."""
    semaphore = asyncio.Semaphore(concurrency)
    tokens = 0
    retries = 0
    async with httpx.AsyncClient(timeout=120) as client:

        async def one(item: BatteryItem) -> None:
            nonlocal tokens, retries
            # the same request body forgegate sends, so the server does the same work for both
            body = {"model": "m", "messages": [{"role": "user", "content": item.prompt}], "stream": True,
                    "stream_options": {"include_usage": True}, "max_tokens": item.max_tokens, "seed": seed,
                    "temperature": 0.0, "top_p": 1.0}
            for attempt in range(4):  # a real client retries a dropped stream (forgegate does too)
                try:
                    async with semaphore, client.stream("POST", f"{base}/v1/chat/completions", json=body) as resp:
                        count = 0
                        async for line in resp.aiter_lines():
                            if not line.startswith("data: ") or line == "data: [DONE]":
                                continue
                            delta = json.loads(line[6:])["choices"][0].get("delta", {}).get("content")
                            if delta:
                                count += 1
                    tokens += min(count, item.max_tokens)  # the server honours max_tokens; count what is kept
                    return
                except httpx.TransportError:
                    retries += 1
                    if attempt == 3:
                        raise

        await asyncio.gather(*(one(item) for item in items))
    if retries:
        print(f"  bare loop: {retries} dropped stream(s) retried")
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N items (0 = all)")
    args = parser.parse_args()
    battery = load_battery(bundled_battery_path())
    items = list(battery.items[: args.limit or None])
    if args.limit:
        battery = type(battery)(path=battery.path, sha256=battery.sha256, items=tuple(items))
    port = free_port()
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    bare_times: list[float] = []
    forge_times: list[float] = []
    try:
        asyncio.run(bare_loop(base, items[:3], 1, seed=0))  # warm-up: load weights, fill caches
        for round_no in range(args.rounds):
            for side in (("bare", "forgegate") if round_no % 2 == 0 else ("forgegate", "bare")):
                started = time.perf_counter()
                if side == "bare":
                    bare_tokens = asyncio.run(bare_loop(base, items, args.concurrency, seed=round_no))
                    bare_times.append(time.perf_counter() - started)
                    continue
                config = BackendConfig(model="m", base_urls=(f"{base}/v1",))
                spec = EvalSpec(kind="eval", backend="openai", config=config, battery=battery, seed=round_no,
                                temperature=0.0, top_p=1.0, system=None)
                with tempfile.TemporaryDirectory() as store:
                    _, summary = generate_eval(spec, store_dir=Path(store), concurrency=args.concurrency, quiet=True)
                forge_times.append(time.perf_counter() - started)
            print(f"round {round_no}: bare {bare_times[-1]:.2f} s ({bare_tokens} tokens), "
                  f"forgegate {forge_times[-1]:.2f} s ({summary.tokens} tokens, {summary.failed} failed)")
    finally:
        server.kill()
    bare, forge = min(bare_times), min(forge_times)
    print(f"\n{len(items)} requests, concurrency {args.concurrency}: bare loop {bare:.2f} s, forgegate {forge:.2f} s")
    print(f"forgegate / bare = {forge / bare:.3f}x (target <= 1.05)")


if __name__ == "__main__":
    main()
