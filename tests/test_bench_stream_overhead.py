"""benchmarks/bench_stream_overhead.py run tiny: the benchmark that holds forgegate's loop watch to a bare
non-streaming client on a real llama.cpp server must keep running as the code under it changes, and both sides
must generate the same tokens (its exit code says so)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_stream_overhead.py"

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
