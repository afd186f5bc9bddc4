"""The corpus-only loop-prone patterns: symbol escalation chains, echoed prompts, duplicate clusters.

Repeated phrases are not here: they are the shared detector's job
(:func:`forgegate.checks.loops.detect_loop`). These are properties of a *training row* that
teach a model to loop without the row itself looping:

* an escalation chain: one character written as whole-token runs of k, k+1, k+2 copies,
  in that order (``⊙ α? → αα. ⊙ αα? → ααα.``: the v9 increment pattern). Roman-numeral
  letters are exempt (``I, II, III`` is a legitimate sequence), digits and punctuation too;
* an echo: the completion starts with its own prompt (speaker prefix optional), or holds it
  twice, for prompts of at least ``ECHO_MIN_UNITS`` non-space units;
* a dominant duplicate cluster: rows of one prompt whose completions are near-duplicates
  (word-bigram Jaccard >= ``NEAR_DUPLICATE_JACCARD``), ``DUPLICATE_MIN_ROWS``+ of them and
  at least ``DUPLICATE_MIN_SHARE`` of that prompt's rows.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from forgegate.audit.contamination import normalise_words
from forgegate.audit.corpus import CorpusRow
from forgegate.checks.loops import tokenize_for_loops

ESCALATION_CHAIN = 3
ECHO_MIN_UNITS = 3
NEAR_DUPLICATE_JACCARD = 0.8
DUPLICATE_MIN_ROWS = 3
DUPLICATE_MIN_SHARE = 0.5
_ROMAN = frozenset("IVXLCDMivxlcdm")
# whole-word runs of one word character, or runs of one symbol (non-ASCII, or an ASCII symbol)
_RUN = re.compile(r"(?<!\w)(\w)\1*(?!\w)|([^\w\s\x00-\x7f]|[$+<=>^`|~])\2*")
_SPEAKER = re.compile(r"^\s*[^\s:]{1,12}:\s*")


def escalation_chain(text: str, min_chain: int = ESCALATION_CHAIN) -> tuple[str, int, int] | None:
    """``(char, first_length, chain_length)`` of the first escalating run chain in ``text``, or None."""
    first_seen: dict[str, dict[int, int]] = defaultdict(dict)
    for match in _RUN.finditer(text):
        ch = match.group(1) or match.group(2)
        if _escalatable(ch):
            first_seen[ch].setdefault(match.end() - match.start(), match.start())
    for ch, lengths in first_seen.items():
        for k in sorted(lengths):
            chain = 1
            while k + chain in lengths and lengths[k + chain] > lengths[k + chain - 1]:
                chain += 1
            if chain >= min_chain:
                return ch, k, chain
    return None


def _escalatable(ch: str) -> bool:
    if ch in _ROMAN or ch.isdigit() or ch.isspace():
        return False
    category = unicodedata.category(ch)
    return ch.isalpha() or category.startswith("S")


def _squash(text: str) -> str:
    return " ".join(text.split())


def echoes_prompt(prompt: str, completion: str, min_units: int = ECHO_MIN_UNITS) -> bool:
    """The completion starts with its prompt (with or without a speaker prefix) or holds it twice."""
    units = [u for u in tokenize_for_loops(prompt) if u.strip()]
    if len(units) < min_units:
        return False
    said, body = _squash(completion), _squash(prompt)
    bare = _squash(_SPEAKER.sub("", prompt, count=1))
    candidates = {body} | ({bare} if len([u for u in tokenize_for_loops(bare) if u.strip()]) >= min_units
                           else set())
    return any(said.startswith(c) or said.count(c) >= 2 for c in candidates if c)


@dataclass(frozen=True)
class DuplicateCluster:
    """Near-duplicate rows dominating one prompt: the first row is kept, the rest are flagged."""

    prompt: str
    lines: tuple[int, ...]
    prompt_rows: int

    @property
    def flagged(self) -> tuple[int, ...]:
        return self.lines[1:]


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = normalise_words(text)
    if len(words) < 2:
        return frozenset({tuple(words)})
    return frozenset(zip(words, words[1:], strict=False))


def _jaccard(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def dominant_duplicates(
    rows: Sequence[CorpusRow],
    *,
    threshold: float = NEAR_DUPLICATE_JACCARD,
    min_rows: int = DUPLICATE_MIN_ROWS,
    min_share: float = DUPLICATE_MIN_SHARE,
) -> list[DuplicateCluster]:
    """Clusters of near-duplicate completions that dominate the rows of one prompt."""
    groups: dict[str, list[CorpusRow]] = defaultdict(list)
    for row in rows:
        groups[_squash(row.prompt).casefold()].append(row)
    clusters: list[DuplicateCluster] = []
    for members in groups.values():
        if len(members) < min_rows:
            continue
        reps: list[tuple[frozenset[tuple[str, ...]], list[int]]] = []
        for row in members:
            sh = _shingles(row.completion)
            for rep, lines in reps:
                if _jaccard(sh, rep) >= threshold:
                    lines.append(row.line)
                    break
            else:
                reps.append((sh, [row.line]))
        for _rep, lines in reps:
            if len(lines) >= min_rows and len(lines) / len(members) >= min_share:
                clusters.append(DuplicateCluster(members[0].prompt, tuple(lines), len(members)))
    return sorted(clusters, key=lambda c: (-len(c.lines), c.lines[0]))
