"""Greedy bidirectional-entailment clustering: dedup, representatives, call counts vs the reference."""

from __future__ import annotations

from semantic_helpers import OracleJudge

from forgegate.semantic.clustering import (
    all_pairs_calls,
    cluster_by_entailment,
    equivalent,
    reference_greedy_calls,
)
from forgegate.semantic.embedding import adjusted_rand_index

TEXTS = ["m1: Paris", "m2: Lyon", "m1: Paris", "m1: it is Paris", "m3: no idea", "m2: Lyon", "m2: Lyon, I think"]


def test_same_meanings_share_a_cluster_and_identical_strings_cost_nothing() -> None:
    judge = OracleJudge()
    result = cluster_by_entailment("capital of France?", TEXTS, judge)
    assert result.labels == (0, 1, 0, 0, 2, 1, 1)
    assert result.unique_texts == 5 and result.n_clusters == 3
    # unique texts in order: m1 (0 reps), m2 (1 fwd), m1' (2 fwd + 1 back), m3 (2 fwd), m2' (3 fwd + 1 back)
    assert result.calls == judge.calls == 0 + 1 + 3 + 2 + 4


def test_strict_rule_needs_both_directions_and_loose_rule_follows_the_reference() -> None:
    assert equivalent("entailment", "entailment", strict=True)
    assert not equivalent("entailment", "neutral", strict=True)
    assert equivalent("entailment", "neutral", strict=False)
    assert not equivalent("neutral", "neutral", strict=False)
    assert not equivalent("entailment", "contradiction", strict=False)


def test_calls_beat_all_pairs_and_the_reference_greedy_count() -> None:
    texts = [f"m{i % 4}: variant {i % 10}" for i in range(40)]  # 4 meanings, 40 samples, 10 distinct strings each
    judge = OracleJudge()
    result = cluster_by_entailment("q", texts, judge)
    meaning = [t.split(":")[0] for t in texts]
    reference = reference_greedy_calls(len(texts), lambda i, j: meaning[i] == meaning[j])
    assert reference == 2 * (39 + 38 + 37 + 36)  # four openers (indices 0-3), each asks both ways of every later one
    assert all_pairs_calls(40) == 1560
    assert result.calls < reference < all_pairs_calls(40)


def test_adjusted_rand_index_is_one_for_relabelled_partitions_and_lower_otherwise() -> None:
    assert adjusted_rand_index([0, 0, 1, 1, 2], [5, 5, 3, 3, 9]) == 1.0
    assert adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) < 0.5
