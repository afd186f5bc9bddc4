"""Numeric rules that several layers check: each written once here and imported where it is used."""

from __future__ import annotations

CONFIRMATORY_MIN_SAMPLES = 64
"""T_GPT v0.8.1: the support floor k = max(2, ceil(tau * N)) is only meaningful at N >= 64 samples per
task and condition; a confirmatory collection needs at least this many (an exploratory one may have fewer)."""
