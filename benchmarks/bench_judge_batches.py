"""Store overhead of the llm judge's requests per batch (issue 34 item 2): 1,000 batches of 2 judge calls through
``StoredJudgeRequests`` with an instant in-process backend (no model: only the engine and the store are timed).

The cost per batch must not grow with the store: the judge reads its batch's keys only (``RunStore.latest_for``)
and keeps the store open and locked for its life. Prints the cumulative seconds after 100 and 1,000 batches.

    PYTHONPATH=src python benchmarks/bench_judge_batches.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from forgegate.backends.base import BackendConfig
from forgegate.core.records import Completion, GenerationRequest, StreamStop
from forgegate.run.judge_requests import StoredJudgeRequests


class Instant:
    """Answers 'neutral' at once: a stand-in backend, so that only forgegate's own overhead is measured."""

    name = "scripted"
    config = BackendConfig()

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        return Completion(text="neutral", tokens=1, token_source="server", finish="stop", latency_s=0.0)

    async def model_digest(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


def main(batches: int = 1000) -> None:
    store = Path(tempfile.mkdtemp()) / "judge.sqlite"
    asker = StoredJudgeRequests(Instant(), store, backend_name="scripted", config=BackendConfig())  # type: ignore[arg-type]
    started, marks = time.perf_counter(), []
    try:
        for b in range(batches):
            asker.answer([GenerationRequest(prompt=f"q{b} {k}", max_tokens=8, temperature=0.0, seed=0)
                          for k in range(2)])
            if b + 1 in (100, batches):
                marks.append((b + 1, round(time.perf_counter() - started, 2)))
    finally:
        asker.close()
    print(f"batches -> cumulative seconds: {marks}; answers generated: {asker.generated}")


if __name__ == "__main__":
    main()
