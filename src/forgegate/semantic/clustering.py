"""Greedy bidirectional-entailment clustering against cluster representatives, with call accounting.

Identical strings are merged before any call; each new text is checked against every current
representative in one batch (representative -> text), and only the candidates that pass go to the
reverse direction (a strict rule never asks the second question after a non-entailment).
Farquhar et al.'s reference compares each cluster opener with *every* later string in both
directions, without deduplication; ``reference_greedy_calls`` counts what it would have asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from forgegate.semantic.entailment import EntailmentJudge, Label


def equivalent(forward: Label, backward: Label, strict: bool) -> bool:
    """Strict: both directions entail. Loose (the reference's default): no contradiction, not both neutral."""
    if strict:
        return forward == "entailment" and backward == "entailment"
    return "contradiction" not in (forward, backward) and (forward, backward) != ("neutral", "neutral")


def _forward_passes(label: Label, strict: bool) -> bool:
    return label == "entailment" if strict else label != "contradiction"


@dataclass(frozen=True)
class ClusterResult:
    """Cluster index per input text (input order), representatives and the calls it took."""

    question: str
    labels: tuple[int, ...]
    representatives: tuple[str, ...]
    calls: int
    unique_texts: int
    strict: bool

    @property
    def n_clusters(self) -> int:
        return len(self.representatives)

    def members(self, texts: Sequence[str]) -> list[list[str]]:
        out: list[list[str]] = [[] for _ in self.representatives]
        for text, label in zip(texts, self.labels, strict=True):
            out[label].append(text)
        return out


def matching_representatives(question: str, text: str, representatives: Sequence[str], judge: EntailmentJudge,
                             strict: bool) -> list[int]:
    """Indices (ascending) of every representative equivalent to ``text`` under the rule.

    The same calls as finding the first one (every representative is asked forward in one batch, every
    forward candidate backward), so seeing the others costs nothing: a text equivalent to two frozen
    representatives is the evidence of an apparent merge after the freeze.
    """
    if not representatives:
        return []
    forward = judge.judge(question, [(rep, text) for rep in representatives])
    candidates = [i for i, label in enumerate(forward) if _forward_passes(label, strict)]
    if not candidates:
        return []
    backward = judge.judge(question, [(text, representatives[i]) for i in candidates])
    return [i for i, back in zip(candidates, backward, strict=True) if equivalent(forward[i], back, strict)]


def match_representative(question: str, text: str, representatives: Sequence[str], judge: EntailmentJudge,
                         strict: bool) -> int | None:
    """Index of the first representative equivalent to ``text`` under the rule, or None."""
    found = matching_representatives(question, text, representatives, judge, strict)
    return found[0] if found else None


def cluster_by_entailment(question: str, texts: Sequence[str], judge: EntailmentJudge,
                          strict: bool = True) -> ClusterResult:
    """Greedy clustering of ``texts`` (answers to ``question``); representatives are each cluster's first text."""
    before = judge.calls
    unique: dict[str, int] = {}
    representatives: list[str] = []
    for text in texts:
        key = text.strip()
        if key in unique:
            continue
        found = match_representative(question, key, representatives, judge, strict)
        if found is None:
            representatives.append(key)
            found = len(representatives) - 1
        unique[key] = found
    labels = tuple(unique[t.strip()] for t in texts)
    return ClusterResult(question, labels, tuple(representatives), judge.calls - before, len(unique), strict)


def all_pairs_calls(n: int) -> int:
    """Directed calls to judge every ordered pair of n texts."""
    return n * (n - 1)


def reference_greedy_calls(n: int, same: Callable[[int, int], bool]) -> int:
    """Calls Farquhar et al.'s ``get_semantic_ids`` makes: each unassigned i asks both directions for every j > i."""
    assigned = [False] * n
    calls = 0
    for i in range(n):
        if assigned[i]:
            continue
        assigned[i] = True
        for j in range(i + 1, n):
            calls += 2
            if same(i, j):
                assigned[j] = True
    return calls
