"""benchmarks/bench_stream_overhead.py and bench_stream_floor.py run tiny: the benchmarks that hold forgegate's loop
watch to a bare non-streaming client (and to the floor of streaming itself) on a real llama.cpp server must keep
running as the code under them changes, and forgegate and the bare client must generate the same tokens (the exit
code says so)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_stream_overhead.py"
FLOOR = BENCH.with_name("bench_stream_floor.py")

pytestmark = pytest.mark.slow  # starts a llama.cpp server


def test_the_benchmark_runs_tiny_and_both_sides_generate_the_same_tokens() -> None:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    done = subprocess.run([sys.executable, str(BENCH), "--limit", "4", "--max-tokens", "8", "--rounds", "1",
                           "--concurrency", "1", "4", "--threads", "1"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summaries = re.findall(r"concurrency (\d): forgegate / bare wall = ([\d.]+)x.*tokens \[(\d+)\]", done.stdout)
    assert [c for c, _, _ in summaries] == ["1", "4"]
    assert all(float(ratio) > 0 and int(tokens) > 0 for _, ratio, tokens in summaries)
    floors = re.findall(r"concurrency (\d): streaming floor / bare wall = [\d.]+x; client CPU stream [\d.]+ s = "
                        r"[\d.]+x bare, forgegate = ([\d.]+)x stream; (\d+) text deltas", done.stdout)
    assert [c for c, _, _ in floors] == ["1", "4"]  # the third side, the floor of streaming through httpx
    assert all(float(ratio) > 0 and int(deltas) > 0 for _, ratio, deltas in floors)


def test_the_transport_floor_benchmark_runs_tiny() -> None:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    done = subprocess.run([sys.executable, str(FLOOR), "--answers", "1", "--rounds", "1", "--max-tokens", "4"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    sides = dict(re.findall(r"^([a-z ]+): [\d.]+ ms client CPU per 4-token answer .* = ([\d.]+)x httpx whole$",
                            done.stdout, re.MULTILINE))
    assert {"httpx streamed", "socket streamed", "httpx whole"} <= set(sides) and sides["httpx whole"] == "1.00"
