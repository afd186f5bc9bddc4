"""benchmarks/bench_embedded.py's two sides, once each, tiny: the benchmark that holds the embedded backend to the
bare llama-cpp-python call must keep running as the code under it changes (it broke once when the store's metadata
became typed, and nothing noticed). Both sides must generate the same tokens for the same seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_embedded.py"

pytestmark = pytest.mark.slow  # starts the embedded model


def side(name: str, arms: int) -> dict[str, object]:
    done = subprocess.run([sys.executable, str(BENCH), "--child", name, "--threads", "2", "--prompts", "2",
                           "--max-tokens", "12", "--seed", "1", "--temperature", "0.8", "--concurrency", "4",
                           "--arms", str(arms)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("arms", [1, 2])
def test_forgegate_and_the_bare_call_generate_the_same_tokens(arms: int) -> None:
    ours, bare = side("forgegate", arms), side("bare", arms)
    assert ours["tokens"] == bare["tokens"]
    assert 0 < int(str(ours["tokens"])) <= arms * 2 * 12
    assert float(str(ours["wall"])) > 0 and ours["wait"] == "GOMP_SPINCOUNT=10000"
