"""Hand-computed cases for every T_GPT v0.8.1 formula (spec 0.8.1, support/probabilities/metrics)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forgegate.semantic import formulas as f


def arr(*xs: int) -> np.ndarray:
    return np.array(xs, dtype=np.int64)


def mask(*xs: int) -> np.ndarray:
    return np.array(xs, dtype=bool)


@pytest.mark.parametrize(
    ("n", "tau", "expected"),
    [(100, 0.02, 2), (64, 0.02, 2), (200, 0.02, 4), (10, 0.02, 2), (64, 0.05, 4), (101, 0.02, 3),
     (700, 0.01, 7), (300, 0.01, 3), (100, 0.07, 7)],
)
def test_support_floor_is_max_of_minimum_count_and_ceil_tau_n(n: int, tau: float, expected: int) -> None:
    # 0.01 * 700 is 7.000000000000001 in floating point; the decimal tau is meant, so k is 7, not 8.
    assert f.support_floor(n, tau, 2) == expected


def test_cluster_exactly_at_the_floor_is_observed_and_one_below_is_not() -> None:
    assert f.observed(arr(2, 1, 5, 0), 2).tolist() == [True, False, True, False]


def test_probabilities_use_mapped_samples_only_and_unmapped_rate_is_separate() -> None:
    counts = arr(4, 2, 0)  # N = 10: 4 samples UNMAPPED
    assert f.probabilities(counts).tolist() == pytest.approx([4 / 6, 2 / 6, 0.0])
    assert float(f.unmapped_rate(10, counts)) == pytest.approx(0.4)


def test_d_sem_and_h_sem_renormalise_over_relevant_observed_clusters() -> None:
    counts = arr(2, 1, 1)  # p = .5 .25 .25; c2 is irrelevant, c1 below k=2
    p = f.probabilities(counts)
    s_plus = f.relevant_support(counts, 1, mask(1, 1, 0))
    assert float(f.d_sem(s_plus)) == 2
    # q = (2/3, 1/3) over S+ = {c0, c1}
    expected = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert float(f.h_sem(p, s_plus)) == pytest.approx(expected)
    assert float(f.h_sem(p, f.relevant_support(counts, 2, mask(1, 1, 0)))) == 0.0  # one cluster: zero entropy


def test_h_sem_is_na_when_no_relevant_cluster_is_observed() -> None:
    counts = arr(1, 1)
    assert math.isnan(float(f.h_sem(f.probabilities(counts), f.relevant_support(counts, 2, mask(1, 1)))))


def test_p_is_share_of_mapped_samples_in_relevant_clusters() -> None:
    assert float(f.relevance_proportion(arr(4, 2, 3), mask(1, 1, 0))) == pytest.approx(6 / 9)


def _sets(a: np.ndarray, b: np.ndarray, r: np.ndarray, k: int = 2) -> tuple[np.ndarray, ...]:
    rel = np.ones(len(a), dtype=bool)
    return (f.probabilities(a), f.relevant_support(a, k, rel), f.relevant_support(b, k, rel),
            f.relevant_support(r, k, rel))


def test_es_loss_is_reference_mass_lost_below_the_floor_in_b() -> None:
    p_a, s_a, s_b, _ = _sets(arr(50, 30, 20), arr(70, 29, 1), arr(50, 30, 20))
    assert float(f.es_loss(p_a, s_a, s_b)) == pytest.approx(0.2)


def test_rec_gain_counts_lost_clusters_back_at_the_floor_in_r() -> None:
    a, b = arr(50, 30, 20, 10), arr(80, 28, 1, 1)  # c2 (20) and c3 (10) lost: ES_LOSS = 30/110
    p_a, s_a, s_b, s_r = _sets(a, b, arr(60, 20, 2, 1))  # c2 back exactly at k=2, c3 not
    assert float(f.es_loss(p_a, s_a, s_b)) == pytest.approx(30 / 110)
    gain = f.rec_gain(p_a, s_a, s_b, s_r)
    assert float(gain) == pytest.approx(20 / 30)
    assert float(f.irrev_obs(gain)) == pytest.approx(10 / 30)


def test_rec_gain_and_irrev_obs_are_na_not_zero_or_one_without_loss() -> None:
    p_a, s_a, s_b, s_r = _sets(arr(50, 50), arr(40, 60), arr(0, 100))
    assert float(f.es_loss(p_a, s_a, s_b)) == 0.0
    gain = f.rec_gain(p_a, s_a, s_b, s_r)
    assert math.isnan(float(gain))
    assert math.isnan(float(f.irrev_obs(gain)))


def test_all_unmapped_reference_makes_every_ratio_na_but_d_sem_zero() -> None:
    a = arr(0, 0)  # every A sample UNMAPPED
    p_a, s_a, s_b, s_r = _sets(a, arr(10, 10), arr(10, 10))
    assert math.isnan(float(f.es_loss(p_a, s_a, s_b)))
    assert math.isnan(float(f.rec_gain(p_a, s_a, s_b, s_r)))
    assert float(f.d_sem(s_a)) == 0
    assert math.isnan(float(f.relevance_proportion(a, np.ones(2, dtype=bool))))
    assert float(f.unmapped_rate(20, a)) == 1.0


def test_all_unmapped_contracted_condition_loses_all_reference_mass() -> None:
    p_a, s_a, s_b, _ = _sets(arr(10, 10), arr(0, 0), arr(0, 0))
    assert float(f.es_loss(p_a, s_a, s_b)) == 1.0


def test_agg_coverage_weights_represented_support_by_pool_probability() -> None:
    counts = arr(5, 3, 2, 1)  # k=2: c3 is below the floor and does not count
    rel = np.ones(4, dtype=bool)
    s_p = f.relevant_support(counts, 2, rel)
    value = f.agg_coverage(f.probabilities(counts), s_p, mask(1, 0, 1, 1))
    assert float(value) == pytest.approx(7 / 10)


def test_minority_is_at_or_below_numpy_linear_25th_percentile_of_nonzero_relevant_p() -> None:
    # non-zero relevant counts 10, 1, 2, 3 -> sorted 1 2 3 10, 25th percentile (linear) = 1.75: only c1
    counts, rel = arr(10, 1, 2, 3, 0, 1), mask(1, 1, 1, 1, 1, 0)
    assert f.minority_set(counts, rel).tolist() == [False, True, False, False, False, False]
    assert f.minority_recall(counts, rel, mask(0, 1, 0, 0, 0, 0)) == 1.0
    assert f.minority_recall(counts, rel, mask(1, 0, 1, 1, 1, 1)) == 0.0


def test_minority_ties_at_the_percentile_are_all_minority() -> None:
    counts, rel = arr(2, 2, 2, 8), mask(1, 1, 1, 1)  # percentile of 2 2 2 8 is 2
    assert f.minority_set(counts, rel).tolist() == [True, True, True, False]
    assert f.minority_recall(counts, rel, mask(1, 0, 0, 1)) == pytest.approx(1 / 3)


def test_minority_recall_is_na_without_relevant_nonzero_clusters() -> None:
    assert math.isnan(f.minority_recall(arr(0, 5), mask(1, 0), mask(1, 1)))


def test_formulas_vectorise_over_a_batch_axis() -> None:
    a = np.array([[50, 30, 20], [50, 50, 0]])
    b = np.array([[70, 30, 0], [50, 50, 0]])
    rel = np.ones(3, dtype=bool)
    loss = f.es_loss(f.probabilities(a), f.relevant_support(a, 2, rel), f.relevant_support(b, 2, rel))
    assert loss.tolist() == pytest.approx([0.2, 0.0])
