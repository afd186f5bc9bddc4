"""The client CPU of one streamed answer against one non-streamed answer, per transport (issue 33 item 3's floor).

One ``python -m llama_cpp.server`` on the packaged SmolLM2 GGUF (as ``bench_stream_overhead.py`` starts it), then in
one process, interleaved for ``--rounds`` rounds, ``--answers`` answers each of one chat prompt capped at
``--max-tokens`` (greedy, seed 0, one at a time, on a warm connection) read by: httpx streamed (``aiter_raw``,
what forgegate's SSE reader reads), aiohttp streamed (its C HTTP parser; only when aiohttp is installed, it is
not a forgegate dependency), a bare asyncio socket streamed (no HTTP parsing at all: the cost of one event-loop
wake-up per streamed token, the least any asyncio client can pay), and httpx not streamed (the bare loop's
request). Printed: the median client CPU (user + system) per answer of each, and each streamed one's ratio to
the non-streamed one, with the load average. No parsing of the events: this is the transport alone.

    python benchmarks/bench_stream_floor.py [--answers 7] [--rounds 3] [--max-tokens 32] [--port P]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stream_overhead import start_server  # noqa: E402

PATH = "/v1/chat/completions"


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def body(max_tokens: int, stream: bool) -> dict[str, Any]:
    return {"model": "m", "max_tokens": max_tokens, "temperature": 0.0, "seed": 0, "stream": stream,
            "messages": [{"role": "user", "content": "Tell me about the sea."}]}


async def timed(answers: int, one: Callable[[], Awaitable[None]]) -> list[float]:
    costs = []
    for _ in range(answers + 1):  # the first answer opens the connection: not counted
        started = cpu_s()
        await one()
        costs.append(cpu_s() - started)
    return costs[1:]


async def httpx_stream(port: int, args: argparse.Namespace) -> list[float]:
    async with httpx.AsyncClient(timeout=600) as client:
        async def one() -> None:
            async with client.stream("POST", f"http://127.0.0.1:{port}{PATH}", json=body(args.max_tokens, True)) as r:
                async for _ in r.aiter_raw():
                    pass
        return await timed(args.answers, one)


async def httpx_whole(port: int, args: argparse.Namespace) -> list[float]:
    async with httpx.AsyncClient(timeout=600) as client:
        async def one() -> None:
            (await client.post(f"http://127.0.0.1:{port}{PATH}", json=body(args.max_tokens, False))).json()
        return await timed(args.answers, one)


async def aiohttp_stream(port: int, args: argparse.Namespace) -> list[float]:
    import aiohttp

    async with aiohttp.ClientSession() as client:
        async def one() -> None:
            async with client.post(f"http://127.0.0.1:{port}{PATH}", json=body(args.max_tokens, True)) as r:
                async for _ in r.content.iter_any():
                    pass
        return await timed(args.answers, one)


async def socket_stream(port: int, args: argparse.Namespace) -> list[float]:
    payload = json.dumps(body(args.max_tokens, True)).encode()
    head = (f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()

    async def one() -> None:  # a new connection per answer (no HTTP parsing, so no keep-alive): the floor
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head + payload)
        while await reader.read(65536):
            pass
        writer.close()
    return await timed(args.answers, one)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--port", type=int, default=0, help="a llama_cpp.server already running there (0: start one)")
    args = parser.parse_args()
    sides: dict[str, Callable[[int, argparse.Namespace], Awaitable[list[float]]]] = {
        "httpx streamed": httpx_stream, "socket streamed": socket_stream, "httpx whole": httpx_whole}
    try:
        import aiohttp  # noqa: F401

        sides["aiohttp streamed"] = aiohttp_stream
    except ImportError:
        print("aiohttp not installed: its side is left out")
    server, port = start_server(0) if not args.port else (None, args.port)
    costs: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for round_no in range(args.rounds):
            for name in list(sides) if round_no % 2 == 0 else list(sides)[::-1]:
                costs[name] += asyncio.run(sides[name](port, args))
    finally:
        if server is not None:
            server.kill()
    whole = statistics.median(costs["httpx whole"])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    for name, values in costs.items():
        median = statistics.median(values)
        print(f"{name}: {1000 * median:.1f} ms client CPU per {args.max_tokens}-token answer (median of "
              f"{len(values)}) = {median / whole:.2f}x httpx whole")
    print(f"load {load}")


if __name__ == "__main__":
    main()
