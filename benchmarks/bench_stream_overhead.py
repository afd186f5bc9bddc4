"""What the loop watch costs on a clean run: forgegate's eval generation vs a bare non-streaming client (issue 33).

One `python -m llama_cpp.server` on the packaged SmolLM2 GGUF (``--interrupt_requests False``), then rounds in
which each side runs in its own process, in alternating order so drift hits both: forgegate's generation path as
`forgegate eval` runs it (runner, engine, store, the loop cut-off streaming each answer; no scoring), and the
least a client can do: one non-streamed POST per item with the same body, reading ``usage``; and the floor of
streaming itself (``stream``): the same bodies with ``stream: true`` through httpx, read with the cheapest correct
loop (``aiter_bytes``, split on newlines, ``json.loads`` of each ``data:`` line, one count per text delta), so the
part of forgegate's CPU that is httpx streaming shows apart from forgegate's own work. All send the bundled
(anchor) battery's prompts, each capped at ``--max-tokens``, greedy, seed 0, at each ``--concurrency``.
Printed per concurrency: the best wall time of each side, forgegate / bare (target <= 1.01), each side's client
CPU (user + system of its process during generation) and the ratios (target <= 2 against bare), the load average,
and the token totals: forgegate's and bare's must be equal (the script exits 1 when they are not); the streaming
floor prints its delta count, a lower bound (llama-cpp-python sends a character split over tokens as one delta).

    python benchmarks/bench_stream_overhead.py [--concurrency 1 4] [--rounds 2] [--limit N] [--max-tokens 32]
                                               [--sides bare stream forgegate]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from forgegate.backends import BackendConfig
from forgegate.checks.loop_stop import loop_stop
from forgegate.core.records import GenerationRequest
from forgegate.gate.gloss_config import load_gate_config
from forgegate.run import generate
from forgegate.run.engine import PlannedRequest
from forgegate.run.runner import ArmSpec
from forgegate.store import RunStore
from forgegate.store.run_meta import RunMeta

# imported before any side is timed: both sides' CPU and wall cover generation only, not Python's imports
ROOT = Path(__file__).resolve().parent.parent
SIDES = ("bare", "stream", "aiostream", "forgegate")


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def items(limit: int, max_tokens: int) -> list[tuple[str, str, int, bool]]:
    """(id, prompt, cap, chat) of the anchor battery's first ``limit`` items (0: all)."""
    from forgegate.battery import bundled_battery_path, load_battery

    battery = load_battery(bundled_battery_path())
    chosen = battery.items[: limit or None]
    return [(i.item_id, i.prompt, min(i.max_tokens, max_tokens), i.chat is not False) for i in chosen]


async def bare(base: str, todo: list[tuple[str, str, int, bool]], concurrency: int) -> int:
    """One non-streamed request per item with the body forgegate sends; the server's own count."""
    semaphore = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=600) as client:

        async def one(prompt: str, cap: int, chat: bool) -> int:
            body: dict[str, Any] = {"model": "m", "max_tokens": cap, "temperature": 0.0, "top_p": 1.0, "seed": 0}
            path = "/v1/chat/completions" if chat else "/v1/completions"
            body.update({"messages": [{"role": "user", "content": prompt}]} if chat else {"prompt": prompt})
            async with semaphore:
                response = await client.post(base + path, json=body)
            response.raise_for_status()
            return min(int(response.json()["usage"]["completion_tokens"]), cap)

        counts = await asyncio.gather(*(one(prompt, cap, chat) for _, prompt, cap, chat in todo))
    return sum(counts)


class SseDeltas:
    """The cheapest correct SSE loop both streaming floors share: split lines, count text deltas, see a finish."""

    def __init__(self, side: str) -> None:
        self.side, self.deltas, self.finished, self._pending = side, 0, False, b""

    def feed(self, chunk: bytes) -> None:
        *lines, self._pending = (self._pending + chunk).split(b"\n")
        for line in lines:
            if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
                continue
            choice = json.loads(line[6:])["choices"][0]
            text = choice["text"] if "text" in choice else choice["delta"].get("content")
            self.deltas += bool(text)
            self.finished = self.finished or choice.get("finish_reason") is not None

    def total(self) -> int:
        if not self.finished:
            raise SystemExit(f"{self.side}: a stream ended without a finish reason")
        return self.deltas


async def stream(base: str, todo: list[tuple[str, str, int, bool]], concurrency: int) -> int:
    """The streaming floor: the same bodies streamed through httpx, the cheapest correct SSE loop; text deltas."""
    semaphore = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=600) as client:

        async def one(prompt: str, cap: int, chat: bool) -> int:
            body: dict[str, Any] = {"model": "m", "max_tokens": cap, "temperature": 0.0, "top_p": 1.0, "seed": 0,
                                    "stream": True}
            path = "/v1/chat/completions" if chat else "/v1/completions"
            body.update({"messages": [{"role": "user", "content": prompt}]} if chat else {"prompt": prompt})
            counted = SseDeltas("stream")
            async with semaphore, client.stream("POST", base + path, json=body) as response:
                response.raise_for_status()
                async for chunk in response.aiter_bytes():
                    counted.feed(chunk)
            return counted.total()

        counts = await asyncio.gather(*(one(prompt, cap, chat) for _, prompt, cap, chat in todo))
    return sum(counts)


async def aiostream(base: str, todo: list[tuple[str, str, int, bool]], concurrency: int) -> int:
    """The streaming floor through aiohttp (its C HTTP parser) instead of httpx: the same loop, the same bodies."""
    import aiohttp

    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as client:

        async def one(prompt: str, cap: int, chat: bool) -> int:
            body: dict[str, Any] = {"model": "m", "max_tokens": cap, "temperature": 0.0, "top_p": 1.0, "seed": 0,
                                    "stream": True}
            path = "/v1/chat/completions" if chat else "/v1/completions"
            body.update({"messages": [{"role": "user", "content": prompt}]} if chat else {"prompt": prompt})
            counted = SseDeltas("aiostream")
            async with semaphore, client.post(base + path, json=body) as response:
                response.raise_for_status()
                async for chunk in response.content.iter_any():
                    counted.feed(chunk)
            return counted.total()

        counts = await asyncio.gather(*(one(prompt, cap, chat) for _, prompt, cap, chat in todo))
    return sum(counts)


async def forgegate(base: str, todo: list[tuple[str, str, int, bool]], concurrency: int) -> int:
    """`forgegate eval`'s generation: the runner with the loop cut-off handed in, into a fresh store."""
    loops = load_gate_config()[0].loops
    prompts = {item_id: prompt for item_id, prompt, _, _ in todo}
    arm = ArmSpec("model", "openai", BackendConfig(model="m", base_urls=(base + "/v1",)))
    planned = [PlannedRequest("model", item_id, 0, GenerationRequest(prompt=prompt, max_tokens=cap, seed=0,
                                                                      temperature=0.0, chat=chat))
               for item_id, prompt, cap, chat in todo]
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "run.sqlite"
        outcome = await generate(store, identity=RunMeta(kind="eval", run_id="bench"), metadata=RunMeta(),
                                 arms=[arm], planned=planned, concurrency=concurrency, quiet=True,
                                 per_arm_digests=False,
                                 stop_for=lambda p: loop_stop(prompts[p.item_id], loops))
        if outcome.summary.failed:
            raise SystemExit(f"forgegate: {outcome.summary.failed} request(s) failed")
        with RunStore.open(store, readonly=True) as opened:
            return sum(r.tokens or 0 for r in opened.latest() if r.ok)


def child(args: argparse.Namespace) -> None:
    todo = items(args.limit, args.max_tokens)
    side = {"bare": bare, "stream": stream, "aiostream": aiostream, "forgegate": forgegate}[args.child]
    base = f"http://127.0.0.1:{args.port}"
    cpu, started = cpu_s(), time.perf_counter()
    tokens = asyncio.run(side(base, todo, args.concurrency[0]))
    wall, cpu = time.perf_counter() - started, cpu_s() - cpu
    print(json.dumps({"side": args.child, "wall": wall, "cpu": cpu, "tokens": tokens}))


def load() -> str:
    """The 1, 5 and 15 minute load averages (the machine is shared: CPU ratios are the robust figure)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_side(name: str, port: int, concurrency: int, args: argparse.Namespace) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--child", name, "--port", str(port), "--concurrency",
                           str(concurrency), "--limit", str(args.limit), "--max-tokens", str(args.max_tokens)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} side failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def start_server(threads: int) -> tuple[subprocess.Popen[bytes], int]:
    from forgegate.backends.embedded import bundled_gguf
    from forgegate.backends.managed import free_port

    port = free_port()
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()), "--host", "127.0.0.1",
            "--port", str(port), "--interrupt_requests", "False", "--seed", "0"]
    if threads:
        argv += ["--n_threads", str(threads)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("llama.cpp server did not start")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N items (0 = all 90)")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="the server's --n_threads (0: its default)")
    parser.add_argument("--sides", nargs="+", choices=SIDES, default=["bare", "stream", "forgegate"],
                        help="which clients to run (bare is always run: the ratios are against it)")
    parser.add_argument("--child", choices=SIDES)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    server, port = start_server(args.threads)
    equal = True
    try:
        run_side("bare", port, 1, argparse.Namespace(limit=3, max_tokens=args.max_tokens))  # warm-up
        sides = [s for s in SIDES if s == "bare" or s in args.sides]
        for concurrency in args.concurrency:
            runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
            for round_no in range(args.rounds):
                for side in sides if round_no % 2 == 0 else sides[::-1]:
                    runs[side].append(run_side(side, port, concurrency, args))
                print(f"concurrency {concurrency}, round {round_no}: " + ", ".join(
                    f"{s} {r[-1]['wall']:.2f} s wall, {r[-1]['cpu']:.2f} s CPU, {r[-1]['tokens']} tokens"
                    for s, r in runs.items()) + f"; load {load()}", flush=True)
            best = {side: min(r, key=lambda r: r["wall"]) for side, r in runs.items()}
            cpu = {side: min(r["cpu"] for r in rs) for side, rs in runs.items()}
            tokens = {r["tokens"] for side in ("bare", "forgegate") for r in runs.get(side, [])}
            equal = equal and len(tokens) == 1
            if "forgegate" in best:
                print(f"concurrency {concurrency}: forgegate / bare wall = "
                      f"{best['forgegate']['wall'] / best['bare']['wall']:.3f}x (target <= 1.01); client CPU "
                      f"forgegate {cpu['forgegate']:.2f} s, bare {cpu['bare']:.2f} s = "
                      f"{cpu['forgegate'] / cpu['bare']:.2f}x (target <= 2); tokens {sorted(tokens)}", flush=True)
            if "stream" in best:
                print(f"concurrency {concurrency}: streaming floor / bare wall = "
                      f"{best['stream']['wall'] / best['bare']['wall']:.3f}x; client CPU stream {cpu['stream']:.2f} s"
                      f" = {cpu['stream'] / cpu['bare']:.2f}x bare" + (
                          f", forgegate = {cpu['forgegate'] / cpu['stream']:.2f}x stream" if "forgegate" in cpu
                          else "") + f"; {runs['stream'][-1]['tokens']} text deltas; load {load()}", flush=True)
            if "aiostream" in best:
                print(f"concurrency {concurrency}: aiohttp streaming floor / bare wall = "
                      f"{best['aiostream']['wall'] / best['bare']['wall']:.3f}x; client CPU aiostream "
                      f"{cpu['aiostream']:.2f} s = {cpu['aiostream'] / cpu['bare']:.2f}x bare; "
                      f"{runs['aiostream'][-1]['tokens']} text deltas", flush=True)
    finally:
        server.kill()
    if not equal:
        print("FAIL: the sides generated different token totals", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
