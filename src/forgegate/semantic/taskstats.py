"""One task's condition-level metrics as a vector, for every analysis variant at once (bootstrap-ready)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from forgegate.semantic import formulas as f
from forgegate.semantic.input_rows import UNMAPPED

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

CONDITION_METRICS = ("D_sem", "H_sem", "P")
PAIR_METRICS = ("ES_LOSS", "REC_GAIN", "IRREV_OBS")


@dataclass(frozen=True)
class Variant:
    """One way of reading the same assignments: a support tau and whether relevance filters clusters."""

    tau: float
    filtered: bool

    @property
    def key(self) -> str:
        return f"{'filtered' if self.filtered else 'unfiltered'}@{self.tau:g}"


@dataclass(frozen=True)
class Roles:
    """The pre-registered condition names: A the wider reference, B the contracted, R recovery-probed B."""

    reference: str
    contracted: str
    recovery: str

    def effect_pairs(self) -> tuple[tuple[str, str, str], ...]:
        """(label, from, to): contraction B vs A and recovery R vs B."""
        return ((f"{self.contracted}-{self.reference}", self.reference, self.contracted),
                (f"{self.recovery}-{self.contracted}", self.contracted, self.recovery))


@dataclass
class TaskData:
    """A task's frozen assignments as integer codes; code ``len(clusters)`` is UNMAPPED."""

    task: str
    clusters: tuple[str, ...]
    labels: dict[str, IntArray] = field(default_factory=dict)

    @staticmethod
    def build(task: str, assignments: dict[str, list[str]]) -> TaskData:
        clusters = tuple(sorted({c for labels in assignments.values() for c in labels if c != UNMAPPED}))
        index = {c: i for i, c in enumerate(clusters)}
        unmapped = len(clusters)
        coded = {cond: np.array([index.get(c, unmapped) for c in labels], dtype=np.int64)
                 for cond, labels in assignments.items()}
        return TaskData(task, clusters, coded)

    def relevance_mask(self, relevance: dict[str, int], filtered: bool) -> NDArray[np.bool_]:
        if not filtered:
            return np.ones(len(self.clusters), dtype=bool)
        return np.array([relevance[c] == 1 for c in self.clusters], dtype=bool)

    def counts(self, labels: IntArray) -> IntArray:
        """``n_X(c)`` for a ``(batch, N)`` label array: shape ``(batch, C)``."""
        labels = np.atleast_2d(labels)
        width = len(self.clusters) + 1
        batch = labels.shape[0]
        offsets = (np.arange(batch, dtype=np.int64) * width)[:, None]
        flat = np.bincount((labels + offsets).ravel(), minlength=batch * width)
        return flat.reshape(batch, width)[:, :-1]


@dataclass
class TaskStatistic:
    """Names every number the vector holds and computes it for a batch of resampled label arrays."""

    data: TaskData
    conditions: tuple[str, ...]
    variants: tuple[Variant, ...]
    relevance: dict[str, int]
    roles: Roles | None
    minimum_count: int = f.MINIMUM_COUNT
    effect_variant: str | None = None
    """The variant key whose B-vs-A and R-vs-B differences and ratios are computed (None: every variant)."""
    names: list[tuple[str, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = []
        for v in self.variants:
            for cond in self.conditions:
                self.names += [(v.key, "condition", cond, m) for m in CONDITION_METRICS]
            if self.roles is not None:
                self.names += [(v.key, "pair", m) for m in PAIR_METRICS]
                if not self._effects(v):
                    continue
                for label, _, _ in self.roles.effect_pairs():
                    for m in CONDITION_METRICS:
                        self.names += [(v.key, "effect", label, m, "diff"), (v.key, "effect", label, m, "ratio")]

    def _effects(self, v: Variant) -> bool:
        return self.effect_variant is None or v.key == self.effect_variant

    def floor(self, condition: str, tau: float) -> int:
        return f.support_floor(len(self.data.labels[condition]), tau, self.minimum_count)

    def __call__(self, batch: Sequence[IntArray]) -> FloatArray:
        """``batch`` holds one ``(B, N_X)`` array per condition in ``self.conditions`` order; returns (M, B)."""
        by_cond = dict(zip(self.conditions, batch, strict=True))
        counts = {c: self.data.counts(x) for c, x in by_cond.items()}
        probs = {c: f.probabilities(n) for c, n in counts.items()}
        rows: list[FloatArray] = []
        for v in self.variants:
            rel = self.data.relevance_mask(self.relevance, v.filtered)
            splus = {c: f.relevant_support(counts[c], self.floor(c, v.tau), rel) for c in self.conditions}
            per_cond: dict[str, dict[str, FloatArray]] = {}
            for c in self.conditions:
                per_cond[c] = {"D_sem": f.d_sem(splus[c]), "H_sem": f.h_sem(probs[c], splus[c]),
                               "P": f.relevance_proportion(counts[c], rel)}
                rows += [per_cond[c][m] for m in CONDITION_METRICS]
            if self.roles is not None:
                a, b, r = self.roles.reference, self.roles.contracted, self.roles.recovery
                loss = f.es_loss(probs[a], splus[a], splus[b])
                gain = f.rec_gain(probs[a], splus[a], splus[b], splus[r])
                rows += [loss, gain, f.irrev_obs(gain)]
                if not self._effects(v):
                    continue
                for _, start, end in self.roles.effect_pairs():
                    for m in CONDITION_METRICS:
                        x0, x1 = per_cond[start][m], per_cond[end][m]
                        with np.errstate(invalid="ignore", divide="ignore"):
                            ratio = np.where((x0 == 0) | np.isnan(x0), np.nan, x1 / np.where(x0 == 0, 1.0, x0))
                        rows += [x1 - x0, ratio]
        return np.vstack([np.asarray(r, dtype=np.float64).reshape(1, -1) for r in rows])

    def point(self) -> FloatArray:
        """The estimate on the observed generations (one column)."""
        return self(tuple(self.data.labels[c][None, :] for c in self.conditions))[:, 0]

    def support_lists(self, variant: Variant) -> dict[str, list[str]]:
        """S_X^+ by condition, as frozen cluster IDs (observed generations)."""
        rel = self.data.relevance_mask(self.relevance, variant.filtered)
        out: dict[str, list[str]] = {}
        for c in self.conditions:
            s = f.relevant_support(self.data.counts(self.data.labels[c])[0], self.floor(c, variant.tau), rel)
            out[c] = [cl for cl, keep in zip(self.data.clusters, s, strict=True) if keep]
        return out
