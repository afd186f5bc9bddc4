"""Benchmark: entailment calls per task against all-pairs and the reference greedy, and bootstrap time.

Calls are counted with a meaning-tag judge (a text entails another iff both carry the same tag): call
counts depend only on the algorithm and the partition, not on which model answers. Sample texts imitate
sampling at temperature: a few meanings, each said in a few wordings, repeated strings included.
Run: python benchmarks/bench_semantic.py
"""

from __future__ import annotations

import time

import numpy as np

from forgegate.semantic.analysis import MetricsRequest, compute_metrics
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.clustering import all_pairs_calls, cluster_by_entailment, reference_greedy_calls
from forgegate.semantic.taskstats import Roles


class TagJudge:
    name = "tags"

    def __init__(self) -> None:
        self.calls = 0
        self.seen: set[tuple[str, str, str]] = set()

    def judge(self, question: str, pairs: list[tuple[str, str]]) -> list[str]:
        new = {(question, *p) for p in pairs} - self.seen
        self.seen |= new
        self.calls += len(new)
        return ["entailment" if a.split(":")[0] == b.split(":")[0] else "neutral" for a, b in pairs]

    def describe(self) -> dict[str, str]:
        return {"judge": "tags"}


def calls_table(rng: np.random.Generator, n: int = 64) -> None:
    print(f"entailment calls per task (N={n} samples)")
    print(f"{'task':>6} {'meanings':>8} {'unique':>6} {'ours':>6} {'reference':>9} {'all-pairs':>9} "
          f"{'ref/ours':>8} {'all/ours':>8}")
    for task, meanings in enumerate((2, 4, 8, 16, 32)):
        weights = rng.dirichlet(np.ones(meanings))
        m = rng.choice(meanings, size=n, p=weights)
        texts = [f"m{k}: wording {rng.integers(0, 4)}" for k in m]
        judge = TagJudge()
        ours = cluster_by_entailment("q", texts, judge).calls  # type: ignore[arg-type]
        ref = reference_greedy_calls(n, lambda i, j, m=m: bool(m[i] == m[j]))
        allp = all_pairs_calls(n)
        unique = len(set(texts))
        print(f"{task:>6} {meanings:>8} {unique:>6} {ours:>6} {ref:>9} {allp:>9} {ref / ours:>8.1f} "
              f"{allp / ours:>8.1f}")


def bootstrap_time(rng: np.random.Generator, tasks: int = 20, n: int = 100) -> None:
    grouped = {f"t{t}": {c: [f"c{x}" if x < 8 else "UNMAPPED" for x in rng.integers(0, 9 if c != "B" else 6, n)]
                         for c in "ABR"} for t in range(tasks)}
    relevance = {f"c{i}": int(i != 3) for i in range(8)}
    request = MetricsRequest(grouped, relevance, Roles("A", "B", "R"), BootstrapSettings(seed=1))
    compute_metrics(MetricsRequest({"t0": grouped["t0"]}, relevance, Roles("A", "B", "R"),
                                   BootstrapSettings(seed=1)))  # warm-up (imports, first calls)
    start = time.perf_counter()
    compute_metrics(request)
    full = time.perf_counter() - start
    # baseline measured in the same run: one task's within-task bootstrap, scaled by the task count
    start = time.perf_counter()
    compute_metrics(MetricsRequest({"t0": grouped["t0"]}, relevance, Roles("A", "B", "R"), BootstrapSettings(seed=1)))
    one = time.perf_counter() - start
    print(f"\nbootstrap: {tasks} tasks x 3 conditions x N={n}, 10,000 percentile resamples, primary + unfiltered CIs,"
          " task-level CIs, 3 sensitivity taus (point estimates)")
    print(f"full table: {full:.2f} s (target < 2 s: {'met' if full < 2 else 'NOT met'} on this machine now); "
          f"one task: {one:.3f} s; full / (tasks x one task) = {full / (tasks * one):.2f}")


if __name__ == "__main__":
    generator = np.random.default_rng(0)
    calls_table(generator)
    bootstrap_time(generator)
