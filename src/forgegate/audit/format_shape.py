"""Prompt shape (template, speaker prefix, symbols, length) and battery-vs-corpus comparison.

A battery item is flagged for each way its prompt is shaped unlike anything the corpus
trained on: its template (chat or raw) or its leading speaker prefix (``⊹:``, ``User:``,
or none) occurs in fewer than ``min_rows`` corpus rows; it uses a symbol no corpus text
(prompt, completion or system) contains; its length lies outside the corpus prompts'
[min, max]. Separately the battery's median prompt length outside the corpus's 10th-90th
percentile is a distribution mismatch. Symbols are non-ASCII characters that are neither
punctuation, whitespace nor Latin letters (so ``α``, ``⊙``, ``≥`` count; ``é`` and ``“`` do not).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from forgegate.audit.battery_source import BatteryPrompt
from forgegate.audit.corpus import CorpusRow

FEATURES = ("template", "prefix", "symbols", "length")
_PREFIX = re.compile(r"^\s*([^\s:]{1,12}):(?=\s|$)")


def speaker_prefix(prompt: str) -> str:
    """The leading ``X:`` prefix (``"⊹: ⊙ α?"`` -> ``"⊹:"``), or ``""`` when there is none."""
    match = _PREFIX.match(prompt)
    return f"{match.group(1)}:" if match else ""


def is_symbol(ch: str) -> bool:
    if ch.isascii() or ch.isspace():
        return False
    category = unicodedata.category(ch)
    if category.startswith(("P", "Z", "C")):
        return False
    return not (ch.isalpha() and "LATIN" in unicodedata.name(ch, ""))


def symbols_in(text: str) -> set[str]:
    return {ch for ch in text if is_symbol(ch)}


def prompt_length(prompt: str) -> int:
    """Characters after collapsing whitespace."""
    return len(" ".join(prompt.split()))


@dataclass(frozen=True)
class ItemMismatch:
    """A battery item and each feature on which it is unlike the corpus."""

    item_id: str
    category: str
    reasons: dict[str, str]


@dataclass(frozen=True)
class FormatComparison:
    """The flagged items, the distribution check and both sides' profiles."""

    items: int
    corpus_rows: int
    battery_categories: tuple[str, ...]
    flagged: tuple[ItemMismatch, ...]
    length_distribution_mismatch: bool
    battery_profile: dict[str, object]
    corpus_profile: dict[str, object]

    def feature_counts(self) -> dict[str, int]:
        return {f: sum(f in m.reasons for m in self.flagged) for f in FEATURES}

    @property
    def found(self) -> bool:
        return bool(self.flagged) or self.length_distribution_mismatch


def _profile(templates: Counter[str], prefixes: Counter[str], symbols: Counter[str],
             lengths: list[int]) -> dict[str, object]:
    total = sum(templates.values())
    q = np.percentile(lengths, [0, 10, 50, 90, 100]) if lengths else np.zeros(5)
    return {
        "template": {k: v for k, v in sorted(templates.items())},
        "prefixes": {(k or "(none)"): v for k, v in prefixes.most_common(10)},
        "symbols": len(symbols),
        "length_chars": {"min": int(q[0]), "p10": float(q[1]), "median": float(q[2]),
                         "p90": float(q[3]), "max": int(q[4])},
        "rows": total,
    }


def compare_shapes(battery: Sequence[BatteryPrompt], corpus: Sequence[CorpusRow],
                   *, min_rows: int = 1) -> FormatComparison:
    """Flag battery items whose prompt shape the corpus never (fewer than ``min_rows`` rows) shows."""
    c_templates = Counter("chat" if r.chat else "raw" for r in corpus)
    c_prefixes = Counter(speaker_prefix(r.prompt) for r in corpus)
    c_symbols: Counter[str] = Counter()
    for row in corpus:
        c_symbols.update(symbols_in(row.prompt) | symbols_in(row.completion) | symbols_in(row.system or ""))
    c_lengths = [prompt_length(r.prompt) for r in corpus]
    lo, hi = (min(c_lengths), max(c_lengths)) if c_lengths else (0, -1)
    flagged: list[ItemMismatch] = []
    for item in battery:
        reasons: dict[str, str] = {}
        template = "chat" if item.chat else "raw"
        if c_templates[template] < min_rows:
            reasons["template"] = f"{template} prompt; corpus has {c_templates[template]} {template} rows"
        prefix = speaker_prefix(item.prompt)
        if c_prefixes[prefix] < min_rows:
            seen = ", ".join(f"{k or '(none)'} x{v}" for k, v in c_prefixes.most_common(3))
            reasons["prefix"] = (f"prefix {prefix or '(none)'} in {c_prefixes[prefix]} corpus rows "
                                 f"(corpus: {seen})")
        unseen = sorted(s for s in symbols_in(item.prompt) if c_symbols[s] < min_rows)
        if unseen:
            reasons["symbols"] = f"symbols never in the corpus: {' '.join(unseen)}"
        length = prompt_length(item.prompt)
        if not lo <= length <= hi:
            reasons["length"] = f"{length} chars, corpus prompts span {lo}-{hi}"
        if reasons:
            flagged.append(ItemMismatch(item.item_id, item.category, reasons))
    b_lengths = [prompt_length(i.prompt) for i in battery]
    p10, p90 = (np.percentile(c_lengths, [10, 90]) if c_lengths else (0.0, -1.0))
    median = float(np.median(b_lengths)) if b_lengths else 0.0
    b_symbols: Counter[str] = Counter()
    for item in battery:
        b_symbols.update(symbols_in(item.prompt))
    return FormatComparison(
        items=len(battery), corpus_rows=len(corpus), battery_categories=tuple(i.category for i in battery),
        flagged=tuple(flagged),
        length_distribution_mismatch=not p10 <= median <= p90,
        battery_profile=_profile(Counter("chat" if i.chat else "raw" for i in battery),
                                 Counter(speaker_prefix(i.prompt) for i in battery), b_symbols, b_lengths),
        corpus_profile=_profile(c_templates, c_prefixes, c_symbols, c_lengths),
    )
