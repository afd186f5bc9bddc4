"""Whole-word multi-pattern search (Aho-Corasick) with Unicode-aware word boundaries.

pyahocorasick finds every occurrence of every pattern as a substring; this module keeps
only whole-word occurrences and resolves overlaps leftmost-longest, so ``Ann`` never
matches inside ``Anne``, ``José`` never matches inside ``Josého`` and ``Fitzwilliam Darcy``
counts once, not once more as ``Darcy``. Texts and patterns are compared in Unicode NFC,
so a decomposed ``é`` (``e`` + combining accent) is the same character as a composed one.
Matching is case-sensitive: names are proper nouns. Scripts written without spaces
between words (CJK ideographs, kana, Thai, Lao) have no detectable word boundary, so a
name edge in those scripts matches as a plain substring.

Names differ from battery answers (forgegate.checks.match, the scoring rule) in two ways on
purpose: an underscore joins a name into an identifier (``Ann_Smith`` is not ``Ann``), and a
Greek letter is a letter of a Greek name, not a LATTICE glyph.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from forgegate.checks.match import in_unspaced_script


def nfc(text: str) -> str:
    """The NFC form of ``text``: every comparison in the audits is between NFC strings."""
    return unicodedata.normalize("NFC", text)


def is_word_char(ch: str) -> bool:
    """Letters, digits, underscore and combining marks belong to a word."""
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


@dataclass(frozen=True)
class WordMatch:
    """One whole-word occurrence: ``text[start:end] == name``."""

    start: int
    end: int
    name: str


class WordMatcher:
    """An Aho-Corasick automaton over a fixed set of names, reporting whole-word matches."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(sorted({nfc(n) for n in names}))
        if any(not n.strip() or n != n.strip() for n in self.names):
            raise ValueError("names must be non-empty and carry no leading or trailing whitespace")
        import ahocorasick  # here, not at import: an eval reads this module's nfc() and never builds a matcher

        self._automaton = ahocorasick.Automaton()
        for name in self.names:
            self._automaton.add_word(name, name)
        if self.names:
            self._automaton.make_automaton()

    def find(self, text: str) -> list[WordMatch]:
        """Whole-word, non-overlapping matches in ``text`` (already NFC), leftmost-longest."""
        if not self.names:
            return []
        candidates: list[WordMatch] = []
        for end_index, name in self._automaton.iter(text):
            start = end_index - len(name) + 1
            end = end_index + 1
            if _bounded(text, start, end, name):
                candidates.append(WordMatch(start, end, name))
        candidates.sort(key=lambda m: (m.start, m.start - m.end))
        chosen: list[WordMatch] = []
        last_end = -1
        for match in candidates:
            if match.start >= last_end:
                chosen.append(match)
                last_end = match.end
        return chosen

    def names_in(self, text: str) -> set[str]:
        """The set of names with at least one whole-word match in ``text``."""
        return {m.name for m in self.find(text)}


def needs_boundary(ch: str) -> bool:
    """Whether a name edge at ``ch`` needs a word boundary: scripts written without spaces have none."""
    return is_word_char(ch) and not in_unspaced_script(ch)


def _bounded(text: str, start: int, end: int, name: str) -> bool:
    """A word boundary on each side where the name itself begins or ends with a word character."""
    if needs_boundary(name[0]) and start > 0 and is_word_char(text[start - 1]):
        return False
    return not (needs_boundary(name[-1]) and end < len(text) and is_word_char(text[end]))
