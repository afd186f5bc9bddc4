"""Benchmark: the leak audit's Aho-Corasick matching, 1,000 names over 7,000 pairs.

Baselines measured in the same run on the same pairs:
* naive: one whole-word regex per name, each searched over every pair half. It is timed on
  a subset of the names (``--baseline-names``, default 25) and scaled linearly to all names
  (its cost is one pass per name by construction); both figures are printed;
* alternation: a single ``(?<!\\w)(?:name1|name2|...)(?!\\w)`` regex over every half.
The AC counts are checked against the naive regex's counts for the subset names. Times are
wall-clock (``perf_counter``); the AC line also prints its CPU time, for a shared machine.

    python benchmarks/bench_audit_leak.py [--names 1000] [--pairs 7000] [--seed 0]
"""

from __future__ import annotations

import argparse
import re
import string
import time
from collections import Counter
from pathlib import Path

import numpy as np

from forgegate.audit.leak import count_splits
from forgegate.audit.pairs import Pair
from forgegate.audit.wordmatch import WordMatcher, nfc

TEXTS = Path(__file__).resolve().parents[1] / "data" / "texts"


def make_names(rng: np.random.Generator, count: int) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        length = int(rng.integers(5, 10))
        names.add("".join(str(c) for c in rng.choice(list(string.ascii_lowercase), size=length)).capitalize())
    return sorted(names)


def make_pairs(rng: np.random.Generator, names: list[str], count: int, leak_share: float) -> list[Pair]:
    paragraphs: list[str] = []
    for path in sorted(TEXTS.glob("*.txt")):
        text = nfc(path.read_text(encoding="utf-8"))
        paragraphs += [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if len(p.split()) >= 20]
    pairs: list[Pair] = []
    for i in range(count):
        a, b = (paragraphs[int(j)] for j in rng.integers(0, len(paragraphs), size=2))
        if rng.random() < leak_share:
            a = f"{a} {names[int(rng.integers(0, len(names)))]} said so."
        pairs.append(Pair(Path("bench.jsonl"), i + 1, "train" if i % 35 else "val", a, b))
    return pairs


def naive_counts(names: list[str], pairs: list[Pair]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for name in names:
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        counts[name] = sum(1 for p in pairs if pattern.search(p.instruction) or pattern.search(p.response))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=7000)
    parser.add_argument("--baseline-names", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    names = make_names(rng, args.names)
    pairs = make_pairs(rng, names, args.pairs, leak_share=0.02)
    chars = sum(len(p.instruction) + len(p.response) for p in pairs)
    print(f"{len(names)} names, {len(pairs)} pairs, {chars / 1e6:.1f} M characters (seed {args.seed})")

    start, cpu_start = time.perf_counter(), time.process_time()
    matcher = WordMatcher(names)
    splits = count_splits(matcher, frozenset(names), pairs)
    ac_s, ac_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    ac_counts: Counter[str] = Counter()
    for split in splits.values():
        ac_counts.update(split.names)

    subset = names[: args.baseline_names]
    start = time.perf_counter()
    naive = naive_counts(subset, pairs)
    naive_subset_s = time.perf_counter() - start
    naive_s = naive_subset_s * len(names) / len(subset)

    start = time.perf_counter()
    alternation = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                             + r")(?!\w)")
    alt_hits = sum(1 for p in pairs if alternation.search(p.instruction) or alternation.search(p.response))
    alt_s = time.perf_counter() - start

    agree = all(ac_counts.get(n, 0) == naive[n] for n in subset)
    leaking = sum(s.leaking_instruction for s in splits.values())
    print(f"aho-corasick (build + count):     {ac_s:8.3f} s  ({ac_cpu:.3f} s CPU; {leaking} leaking instructions)")
    print(f"naive per-name regex, {len(subset)} names: {naive_subset_s:8.3f} s  -> {naive_s:.3f} s for "
          f"{len(names)} names (scaled linearly)")
    print(f"one alternation regex:            {alt_s:8.3f} s  ({alt_hits} pairs hit)")
    print(f"ratio naive / aho-corasick:       {naive_s / ac_s:8.1f}x")
    print(f"ratio alternation / aho-corasick: {alt_s / ac_s:8.1f}x")
    print(f"counts agree with the naive regex on the {len(subset)} baseline names: {agree}")
    if not agree:
        raise SystemExit("counts disagree with the naive baseline")


if __name__ == "__main__":
    main()
