"""Where a battery string (expected answer, ``require`` alternative, ``forbid`` string, rejection
marker) is found in a response: the one home of the matching rule the scoring uses.

``word`` (the default, rule id ``forgegate.core.match_rule.MATCH_RULE``): a needle that begins with a letter or digit
matches only where the response has no letter or digit immediately before it; one that ends with
a letter or digit, only where none follows. So ``"no"`` is found in ``"No."`` but not in ``"not"``
or ``"know"``, ``"7"`` in ``"(7)"`` and ``"7."`` but not in ``"17"``.

*Letters and digits* (:func:`is_letter_or_digit`) are ``str.isalnum`` characters and combining
marks (a mark belongs to the letter before it), with two exceptions:

* *Symbol characters* (:func:`is_symbol_char`): Greek letters and every Unicode symbol
  (general category ``S*``: ``⊙ ⊤ ⊢ ∎ ¬ <`` are math symbols, ``◌ ⟳ °`` other symbols).
  LATTICE writes its glyphs with exactly these (``α ι ε κ γ π Φ Ω Φζ ΩQ ⊙ ◌ ⊤ ∎ ⊹``; the
  bundled lattice table is tested against this) and runs them together without spaces
  (``ααα``, ``ι.ε``, ``⊙ Φζ.⊤?``). A needle holding any symbol character is a *symbol string*
  and matches anywhere, as a plain substring (``α`` inside ``αα``; ``ΩQ`` whatever follows it),
  and a Greek letter in the response does not block a word next to it (``NOUS`` in ``αNOUS``).
* Scripts written without spaces between words (CJK ideographs, kana, Thai, Lao) have no word
  boundary to find, so a needle edge in those scripts needs none.

The underscore is not a letter: models write Markdown emphasis (``_no_``), and ``STOP_FAILURE``
must still be found in ``**STOP_FAILURE**``.

``substring`` (an item's ``"match": "substring"``): the rule before word matching, for items whose
strings are meant as stems (``"verif"`` for verified / verifying).

Both compare the NFC-normalised, case-folded (unless case-sensitive) forms of needle and
response, with terminal colour codes (ANSI CSI sequences such as ``ESC[31m``) removed: they are
not text a reader sees, and the ``m`` that ends one must not join the word after it. The rule
id is part of every gate config's identity (its sha256), so a run scored under another rule
says so when re-gated.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from forgegate.battery.item import BatteryItem, MatchMode

_ANSI_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
UNSPACED_SCRIPTS = ("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA", "THAI", "LAO")


def is_symbol_char(ch: str) -> bool:
    """A LATTICE glyph character: a Greek letter or any Unicode symbol (category ``S*``)."""
    return unicodedata.category(ch).startswith("S") or unicodedata.name(ch, "").startswith("GREEK")


def is_letter_or_digit(ch: str) -> bool:
    """A character a word is made of: ``str.isalnum`` or a combining mark, and not a symbol character."""
    return (ch.isalnum() or unicodedata.category(ch).startswith("M")) and not is_symbol_char(ch)


def in_unspaced_script(ch: str) -> bool:
    """A character of a script written without spaces between words (no word boundary exists)."""
    return unicodedata.name(ch, "").startswith(UNSPACED_SCRIPTS)


def is_symbol_string(needle: str) -> bool:
    """A needle holding a symbol character: it matches anywhere (LATTICE glyphs run together)."""
    return any(is_symbol_char(ch) for ch in needle)


def normalise(text: str, case_sensitive: bool = False) -> str:
    """NFC without terminal colour codes, then casefold unless case-sensitive: the form both sides are
    compared in."""
    text = _ANSI_CSI.sub("", unicodedata.normalize("NFC", text))
    return text if case_sensitive else text.casefold()


def _edge_needs_boundary(ch: str) -> bool:
    return is_letter_or_digit(ch) and not in_unspaced_script(ch)


def find_spans(needle: str, haystack: str, mode: MatchMode = "word") -> Iterator[tuple[int, int]]:
    """Every ``(start, end)`` where ``needle`` matches in ``haystack`` (both already normalised), overlaps
    included, in order of start."""
    if not needle:
        return
    word = mode == "word" and not is_symbol_string(needle)
    check_start = word and _edge_needs_boundary(needle[0])
    check_end = word and _edge_needs_boundary(needle[-1])
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before_ok = not (check_start and start > 0 and is_letter_or_digit(haystack[start - 1]))
        after_ok = not (check_end and end < len(haystack) and is_letter_or_digit(haystack[end]))
        if before_ok and after_ok:
            yield start, end
        start = haystack.find(needle, start + 1)


def present(needles: Iterable[str], text: str, *, case_sensitive: bool = False, mode: MatchMode = "word",
            limit: int | None = None) -> list[str]:
    """The needles found in ``text``, in the order given. With ``limit``, a match must end within the
    first ``limit`` characters of the normalised text; its boundary is still judged against the whole
    text, so ``"1"`` is not found in a prefix that cuts ``"17"`` after the ``1``."""
    hay = normalise(text, case_sensitive)
    found = []
    for needle in needles:
        spans = find_spans(normalise(needle, case_sensitive), hay, mode)
        if any(limit is None or end <= limit for _, end in spans):
            found.append(needle)
    return found


def short_word_needle(needle: str, max_chars: int = 2) -> bool:
    """A needle of one or two letters or digits (``no``, ``7``): found by chance in many answers that
    merely mention it, even with word boundaries."""
    stripped = needle.strip()
    return 0 < len(stripped) <= max_chars and all(is_letter_or_digit(ch) for ch in stripped)


def short_answers(item: BatteryItem) -> list[str]:
    """The strings that make ``item`` pass and are one or two letters or digits: ``contains`` /
    ``reject`` answers and ``require`` alternatives (``exact`` answers must be the whole response)."""
    needles = list(item.expected_list) if item.eval_type in ("contains", "reject") else []
    needles += [alt for group in item.require or [] for alt in group]
    return [n for n in dict.fromkeys(needles) if short_word_needle(n)]


def coherent_tokens(vocabulary: Iterable[str], response: str, prompt: str, *, case_sensitive: bool = False,
                    mode: MatchMode = "word") -> list[str]:
    """The vocabulary strings that make ``response`` a *coherent* answer to ``prompt``: the one home of
    GLOSS v2's "coherent LATTICE token or crew-relevant content" (LX-LIVE-GEN, live tasks 3, 5, 8, 10,
    SYMBOL-STRESS).

    ``vocabulary`` is the content the answer may carry (the battery builder's
    :func:`forgegate.battery.vocab.content_tokens`: crew glyphs and names and the glyphs that mean
    something, not the bare operators ``⊙ ⊢`` or separators, so ``.⊢ .CMD .∶`` alone, GLOSS v2's
    example of valid form with no meaning, carries none). A string counts only when it is found in
    the response and *not* in the prompt: a glyph the prompt already holds is an echo, and an answer
    made only of echoes (``κ.⊢`` to ``κ.⊢ report status``, ``Φζ.⊤`` to ``⊙ Φζ.⊤?``) says nothing new.
    A response is coherent when this list is not empty.
    """
    needles = list(vocabulary)
    echoed = set(present(needles, prompt, case_sensitive=case_sensitive, mode=mode))
    return [n for n in present(needles, response, case_sensitive=case_sensitive, mode=mode) if n not in echoed]
