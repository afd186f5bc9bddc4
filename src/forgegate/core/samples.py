"""K samples per item: how many a run may ask for, and the seed each sample is generated with.

Sample 0 is generated with the run's own seed, so ``samples = 1`` is the spec's procedure unchanged (same
requests, same store keys, same answers). Sample ``j >= 1`` gets a seed derived from (the run's seed, j) by a
hash: deterministic, so a resumed run asks the store for the same keys and raising K later reuses the first K
answers; recorded, since the seed is part of every stored request; and a non-negative 31-bit number, which every
backend forgegate drives takes as a fixed seed (llama.cpp reads a negative or 0xFFFFFFFF seed as "random").
"""

from __future__ import annotations

import hashlib
from typing import Annotated

from forgegate.core.checked import checked

DEFAULT_SAMPLES = 1
"""One sample per item: the spec's procedure."""
MAX_SAMPLES = 64
"""Each sample is a full pass over the battery; more than this is a typo, not a plan."""


def samples_problem(value: int) -> str | None:
    """Why ``value`` cannot be a number of samples per item, or None."""
    if 1 <= value <= MAX_SAMPLES:
        return None
    return f"must be a whole number from 1 to {MAX_SAMPLES} (samples per item; 1 = the spec's procedure), not {value}"


Samples = Annotated[int, checked(samples_problem)]
"""A number of samples per item (the session options' ``samples``)."""


def sample_seed(base: int, j: int) -> int:
    """The seed of sample ``j`` of a run whose seed is ``base``: ``base`` itself for sample 0, else the first 31 bits
    of sha256("forgegate-sample:<base>:<j>")."""
    if j < 0:
        raise ValueError(f"sample index must be 0 or more, not {j}")
    if j == 0:
        return base
    digest = hashlib.sha256(f"forgegate-sample:{base}:{j}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def sample_seeds(base: int, k: int) -> tuple[int, ...]:
    """The seeds of samples 0 .. k-1 (the first K of any larger K: raising K reuses them). A derived seed equal to
    an earlier one (odds about K^2 / 2^32) is hashed again with a counter, so the K store keys are distinct."""
    seeds: list[int] = []
    for j in range(k):
        seed, again = sample_seed(base, j), 0
        while seed in seeds:
            again += 1
            seed = sample_seed(base, j + again * 2**20)
        seeds.append(seed)
    return tuple(seeds)
