"""The T_GPT v0.8.1 formulas, exactly as written there, vectorised over a leading batch axis.

Counts arrays hold ``n_X(c)`` over the frozen clusters (UNMAPPED excluded), shape ``(..., C)``;
``N_X`` (UNMAPPED included) is passed separately because the support floor uses it. NA is
``nan``: an undefined ratio is never turned into 0 or 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]

TAU_SUPPORT = 0.02
MINIMUM_COUNT = 2
SENSITIVITY_TAUS: tuple[float, ...] = (0.01, 0.03, 0.05)
MINORITY_PERCENTILE = 25.0


def support_floor(n_total: int, tau: float = TAU_SUPPORT, minimum_count: int = MINIMUM_COUNT) -> int:
    """``k_X = max(minimum_count, ceil(tau_support * N_X))``, in exact arithmetic.

    ``ceil(0.01 * 700)`` is 8 in floating point; the decimal tau the plan writes is meant, so 7.
    """
    if n_total < 0:
        raise ValueError("N_X cannot be negative")
    return max(minimum_count, math.ceil(Fraction(str(tau)) * n_total))


def observed(counts: IntArray, k: int) -> BoolArray:
    """``observed_X(c) = 1`` iff ``n_X(c) >= k_X``."""
    return np.asarray(counts >= k)


def probabilities(counts: IntArray) -> FloatArray:
    """``p_X(c) = n_X(c) / sum_j n_X(j)`` over mapped samples; nan where no sample is mapped."""
    counts_f = counts.astype(np.float64)
    total = counts_f.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, counts_f / np.where(total > 0, total, 1.0), np.nan)


def unmapped_rate(n_total: int, counts: IntArray) -> FloatArray:
    """Share of the N_X samples that mapped to no frozen cluster (reported, never redistributed)."""
    mapped = counts.sum(axis=-1).astype(np.float64)
    if n_total == 0:
        return np.full(mapped.shape, np.nan)
    return np.asarray((n_total - mapped) / n_total)


def relevant_support(counts: IntArray, k: int, relevant: BoolArray) -> BoolArray:
    """``S_X^+ = {c : observed_X(c) = 1 and R(c) = 1}``."""
    return observed(counts, k) & relevant


def d_sem(s_plus: BoolArray) -> FloatArray:
    """``D_sem(X) = |S_X^+|``."""
    return np.asarray(s_plus.sum(axis=-1), dtype=np.float64)


def h_sem(p: FloatArray, s_plus: BoolArray) -> FloatArray:
    """``H_sem(X) = -sum_{c in S_X^+} q ln q``, q = p renormalised over S_X^+; nan when S_X^+ is empty."""
    mass = np.where(s_plus, np.nan_to_num(p), 0.0)
    total = mass.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = mass / total
        terms = np.where(q > 0, -q * np.log(np.where(q > 0, q, 1.0)), 0.0)
    h = terms.sum(axis=-1)
    return np.asarray(np.where(total[..., 0] > 0, h, np.nan), dtype=np.float64)


def relevance_proportion(counts: IntArray, relevant: BoolArray) -> FloatArray:
    """``P(X)`` = mapped samples in clusters with R(c)=1 / mapped samples; nan with no mapped sample."""
    mapped = counts.sum(axis=-1).astype(np.float64)
    rel = np.where(relevant, counts, 0).sum(axis=-1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(mapped > 0, rel / np.where(mapped > 0, mapped, 1.0), np.nan))


def _mass_ratio(p: FloatArray, numerator_set: BoolArray, denominator_set: BoolArray) -> FloatArray:
    p0 = np.nan_to_num(p)
    num = np.where(numerator_set, p0, 0.0).sum(axis=-1)
    den = np.where(denominator_set, p0, 0.0).sum(axis=-1)
    undefined = (den <= 0) | np.isnan(p).all(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(undefined, np.nan, num / np.where(den > 0, den, 1.0)))


def es_loss(p_a: FloatArray, s_a: BoolArray, s_b: BoolArray) -> FloatArray:
    """``ES_LOSS(A,B) = sum_{L(A,B)} p_A / sum_{S_A^+} p_A`` with ``L = S_A^+ minus S_B^+``; nan if S_A^+ is empty."""
    return _mass_ratio(p_a, s_a & ~s_b, s_a)


def rec_gain(p_a: FloatArray, s_a: BoolArray, s_b: BoolArray, s_r: BoolArray) -> FloatArray:
    """``REC_GAIN = sum_{L cap S_R^+} p_A / sum_{L} p_A``; NA (nan) whenever ES_LOSS(A,B) is 0 or NA."""
    lost = s_a & ~s_b
    gain = _mass_ratio(p_a, lost & s_r, lost)
    loss = es_loss(p_a, s_a, s_b)
    return np.asarray(np.where(np.isnan(loss) | (loss == 0), np.nan, gain))


def irrev_obs(rec: FloatArray) -> FloatArray:
    """``IRREV_OBS = 1 - REC_GAIN``; NA whenever REC_GAIN is NA."""
    return np.asarray(1.0 - rec)


def agg_coverage(p_pool: FloatArray, s_pool: BoolArray, represented: BoolArray) -> FloatArray:
    """``AGG_COVERAGE(P,Y) = sum_{S_P^+ and represented_Y} p_P / sum_{S_P^+} p_P``; nan if S_P^+ is empty."""
    return _mass_ratio(p_pool, s_pool & represented, s_pool)


def minority_set(counts_pool: IntArray, relevant: BoolArray) -> BoolArray:
    """Relevant clusters with non-zero p_P at or below the 25th percentile (numpy linear) of those p_P.

    Computed on counts: p_P = n/total is a positive rescaling, so the same clusters are chosen
    without floating-point ties being broken by rounding.
    """
    counts_pool = np.asarray(counts_pool)
    candidates = relevant & (counts_pool > 0)
    if not candidates.any():
        return candidates
    threshold = np.percentile(counts_pool[candidates].astype(np.float64), MINORITY_PERCENTILE)
    return np.asarray(candidates & (counts_pool <= threshold))


def minority_recall(counts_pool: IntArray, relevant: BoolArray, represented: BoolArray) -> float:
    """``MINORITY_RECALL(P,Y)`` = minority relevant IDs represented in Y / minority relevant IDs in P; nan if none."""
    minority = minority_set(counts_pool, relevant)
    size = int(minority.sum())
    if size == 0:
        return math.nan
    return float((minority & represented).sum()) / size
