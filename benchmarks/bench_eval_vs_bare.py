"""forgegate's generation path vs a bare async httpx loop, on a real llama.cpp server.

Both send the bundled battery's prompts to the same `python -m llama_cpp.server` (the embedded
SmolLM2 GGUF), streaming, with the same caps, seed and concurrency, and per-token logprobs for the
items with ``within_tokens`` (forgegate asks those for token boundaries). The server runs with
``--interrupt_requests False``: by default llama-cpp-python's server cuts the running stream
whenever another request arrives, which turns any concurrency into retries. forgegate's wall time is
printed as a ratio of the bare loop's (target <= 1.05): the store, retries, cap and progress
must cost next to nothing beside generation. Rounds alternate so drift hits both sides.

Then the token check: forgegate's total completion tokens (one request at a time, battery order)
against the server's own count for the same requests sent without streaming, in the same order
from the same starting state (the server reuses the cached prefix of the previous request, which
can change a greedy answer, so both passes must follow the same sequence). Both totals are
printed; the script exits 1 if they differ, naming the items.

    python benchmarks/bench_eval_vs_bare.py [--concurrency 4] [--rounds 2] [--limit N] [--max-tokens 32]
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

from forgegate.backends import BackendConfig
from forgegate.backends._boundaries import logprob_request
from forgegate.backends._http import chat_messages
from forgegate.backends.embedded import bundled_gguf
from forgegate.battery import Battery, bundled_battery_path, load_battery
from forgegate.battery.item import BatteryItem
from forgegate.core.records import GenerationRequest
from forgegate.pipeline.session.eval_session import EvalSpec
from forgegate.run import ExecutionSummary, generate, plan_requests
from forgegate.store import RunStore, run_path
from forgegate.store.run_meta import RunMeta

WARM_UP = "Name three colours."
"""Sent before each pass of the token check, so both start from the same cached prefix."""


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
            if item.within_tokens is not None:  # forgegate asks these for boundaries: the server's costliest work
                body.update(logprob_request(chat=True))
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


def generate_eval(spec: EvalSpec, store_dir: Path, concurrency: int) -> tuple[Path, ExecutionSummary]:
    """forgegate's generation path for an eval (runner, engine, store), without scoring."""
    arm = spec.arm()
    outcome = asyncio.run(generate(
        run_path(spec.run_id, store_dir),
        identity=RunMeta.model_validate({**spec.identity(), "run_id": spec.run_id}), metadata=RunMeta(),
        arms=[arm], planned=plan_requests([arm], spec.items(), [spec.seed], spec.sampling()),
        concurrency=concurrency, quiet=True, per_arm_digests=False))
    return outcome.store_path, outcome.summary


def forgegate_pass(base: str, battery: Battery, concurrency: int, seed: int) -> tuple[float, int, dict[str, int]]:
    """Run forgegate's eval generation; (wall seconds, total tokens, tokens per item id)."""
    config = BackendConfig(model="m", base_urls=(f"{base}/v1",))
    spec = EvalSpec(kind="eval", backend="openai", config=config, battery=battery, seed=seed,
                    temperature=0.0, top_p=1.0, system=None)
    with tempfile.TemporaryDirectory() as store_dir:
        started = time.perf_counter()
        store_path, summary = generate_eval(spec, Path(store_dir), concurrency)
        took = time.perf_counter() - started
        with RunStore.open(store_path, create=False) as store:
            per_item = {r.item_id: r.tokens or 0 for r in store.latest() if r.ok}
            sources = sorted({r.token_source for r in store.latest() if r.ok and r.token_source})
            placed = sum(1 for r in store.latest() if r.ok and r.token_texts is not None)
    if summary.failed:
        raise SystemExit(f"forgegate pass: {summary.failed} request(s) failed")
    needing = sum(1 for i in battery.items if i.within_tokens is not None)
    print(f"  forgegate token sources: {', '.join(sources)}; token boundaries in {placed} answers "
          f"({needing} items have within_tokens)")
    return took, sum(per_item.values()), per_item


def server_counts(base: str, items: list[BatteryItem], seed: int) -> dict[str, int]:
    """The server's own completion_tokens for each item, not streamed, capped as forgegate caps."""
    counts: dict[str, int] = {}
    with httpx.Client(timeout=300) as client:
        for item in items:
            request = GenerationRequest(prompt=item.prompt, max_tokens=item.max_tokens, seed=seed,
                                        temperature=0.0, top_p=1.0, chat=item.chat)
            body = {"model": "m", "max_tokens": item.max_tokens, "seed": seed, "temperature": 0.0, "top_p": 1.0}
            messages = chat_messages(request)
            path = "/v1/chat/completions" if messages is not None else "/v1/completions"
            body.update({"messages": messages} if messages is not None else {"prompt": item.prompt})
            response = client.post(f"{base}{path}", json=body)
            response.raise_for_status()
            counts[str(item.id)] = min(int(response.json()["usage"]["completion_tokens"]), item.max_tokens)
    return counts


def warm_up(base: str) -> None:
    httpx.post(f"{base}/v1/chat/completions", timeout=300,
               json={"model": "m", "messages": [{"role": "user", "content": WARM_UP}], "max_tokens": 8, "seed": 0,
                     "temperature": 0.0}).raise_for_status()


def token_check(base: str, battery: Battery) -> bool:
    """forgegate's total against the server's non-streamed total; prints both, True when equal."""
    warm_up(base)
    _, forge_total, forge = forgegate_pass(base, battery, concurrency=1, seed=0)
    warm_up(base)
    server = server_counts(base, list(battery.items), seed=0)
    server_total = sum(server.values())
    print(f"\ntoken check ({len(battery.items)} requests, one at a time): forgegate {forge_total} tokens, "
          f"server (not streamed) {server_total} tokens")
    differing = {i: (forge.get(i), n) for i, n in server.items() if forge.get(i) != n}
    for item_id, (ours, theirs) in sorted(differing.items()):
        print(f"  {item_id}: forgegate {ours}, server {theirs}")
    return forge_total == server_total and not differing


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N items (0 = all)")
    parser.add_argument("--max-tokens", type=int, default=0, help="cap every item at N tokens (0 = its own cap)")
    args = parser.parse_args()
    battery = load_battery(bundled_battery_path())
    items = list(battery.items[: args.limit or None])
    if args.max_tokens:
        items = [i.model_copy(update={"max_tokens": min(i.max_tokens, args.max_tokens)}) for i in items]
    battery = Battery(path=battery.path, sha256=battery.sha256, items=tuple(items))
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
                took, forge_tokens, _ = forgegate_pass(base, battery, args.concurrency, seed=round_no)
                forge_times.append(took)
            print(f"round {round_no}: bare {bare_times[-1]:.2f} s ({bare_tokens} chunks), "
                  f"forgegate {forge_times[-1]:.2f} s ({forge_tokens} tokens)")
        bare, forge = min(bare_times), min(forge_times)
        print(f"\n{len(items)} requests, concurrency {args.concurrency}: bare loop {bare:.2f} s, "
              f"forgegate {forge:.2f} s")
        print(f"forgegate / bare = {forge / bare:.3f}x (target <= 1.05)")
        equal = token_check(base, battery)
    finally:
        server.kill()
    if not equal:
        print("FAIL: forgegate's token count differs from the server's own count", file=sys.stderr)
        sys.exit(1)
    print("token totals equal")


if __name__ == "__main__":
    main()
