"""Benchmark: the verbatim n-gram index on a 6M-word corpus vs a naive substring scan, same run.

Targets: index a 6M-word corpus in under 10 s; check 1,000 generations in
under 1 s. The corpus is the public-domain novels in data/texts repeated (with one
word renamed per copy, like the renamed copies a training corpus holds) until it
reaches 6M words. The 1,000 generations are 120-word beats: 10% verbatim corpus
windows, 90% the same windows with their words shuffled. The naive baseline searches
the normalised corpus string for each n-gram and grows the match word by word; it is
timed on a few generations (it is far too slow for 1,000) and its answers are checked
against the index's.

Run: python benchmarks/bench_memorization.py [--words 6000000] [--generations 1000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from forgegate.metrics import NgramIndex, read_text, words_of

TEXTS = Path(__file__).resolve().parents[1] / "data" / "texts"


def build_corpus(target_words: int) -> list[str]:
    novels = [read_text(p).text for p in sorted(TEXTS.glob("*.txt"))]
    docs: list[str] = []
    total, copy = 0, 0
    while total < target_words:
        for text in novels:
            renamed = text.replace("the ", f"the{copy} ") if copy else text
            docs.append(renamed)
            total += len(renamed.split())
            if total >= target_words:
                break
        copy += 1
    return docs


def make_generations(docs: list[str], count: int, rng: np.random.Generator) -> list[str]:
    gens: list[str] = []
    for i in range(count):
        words = docs[int(rng.integers(0, len(docs)))].split()
        start = int(rng.integers(0, len(words) - 120))
        window = words[start:start + 120]
        gens.append(" ".join(window) if i % 10 == 0 else " ".join(rng.permutation(window).tolist()))
    return gens


def naive_longest(corpus: str, text: str, n: int) -> int:
    words = words_of(text)
    best = 0
    for i in range(len(words) - n + 1):
        length = max(n, best + 1)
        if i + length > len(words) or f" {' '.join(words[i:i + length])} " not in corpus:
            continue
        while i + length < len(words) and f" {' '.join(words[i:i + length + 1])} " in corpus:
            length += 1
        best = length
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=6_000_000)
    parser.add_argument("--generations", type=int, default=1000)
    parser.add_argument("--naive", type=int, default=5, help="generations timed with the naive scan")
    parser.add_argument("--n", type=int, default=8)
    args = parser.parse_args()
    rng = np.random.default_rng(4919)

    docs = build_corpus(args.words)
    gens = make_generations(docs, args.generations, rng)

    t0 = time.perf_counter()
    index = NgramIndex(docs, args.n)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = index.longest_matches(gens)
    check_s = time.perf_counter() - t0

    corpus = "\n".join(f" {' '.join(words_of(d))} " for d in docs)
    sample = gens[: args.naive]  # the first is a verbatim window, the rest shuffled
    t0 = time.perf_counter()
    naive = [naive_longest(corpus, g, args.n) for g in sample]
    naive_per_gen = (time.perf_counter() - t0) / len(sample)
    agree = naive == index.longest_matches(sample)

    print(f"corpus: {index.words:,} words in {len(docs)} files; {len(gens)} generations of 120 words "
          f"({sum(f > 0 for f in found)} with a >= {args.n}-word verbatim run)")
    print(f"index build: {build_s:.2f} s (target < 10 s)")
    print(f"check {len(gens)} generations: {check_s:.3f} s (target < 1 s); "
          f"{check_s / len(gens) * 1e3:.3f} ms per generation")
    print(f"naive substring scan: {naive_per_gen * 1e3:.0f} ms per generation (timed on {len(sample)}); "
          f"ratio naive/index per generation: {naive_per_gen / (check_s / len(gens)):,.0f}x; "
          f"answers agree: {agree}")


if __name__ == "__main__":
    main()
