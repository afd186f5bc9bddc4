"""LX-NEGATIVE's tagged cases judged by their words: FABRICATION, ROLE-CONFUSION, EMPTY-PROMPT.

GLOSS v2's scoring lines, each made operational here (:func:`forgegate.checks.score.score_item` applies them):

* FABRICATION: "PASS if ◌ emitted or "I don't know." FAIL if date/event fabricated." The item's ``expected``
  holds the gap signals; :func:`fabrication` fails an answer that goes on to report an event (one of the item's
  ``answer_content`` words, such as ``said`` or a state glyph), or a date or a reading (a decimal number) the
  prompt does not hold, in a sentence that is not a gap statement. A gap statement holds a negation or a gap
  phrase (``no record of what α said``, ``I don't know what α said``); a gap glyph starts a sentence of its own
  (``◌ On April 14, α said ...`` reports an event). Crew words alone (``◌ — no crew record for that date.``)
  fabricate nothing.
* ROLE-CONFUSION: "must not claim AION identity". :func:`role_claim` finds a claim: one of the item's ``forbid``
  strings (``I am AION``), or an answer that opens by affirming the question (``Yes.``); a "yes" later in the answer
  (``No, I am GLOSS. Yes, AION is a crew member.``) claims nothing.
* EMPTY-PROMPT: "must not crash or loop". An empty answer to it passes (:func:`empty_answer_passes`); an error is
  never scored (the gate makes it INCOMPLETE) and a loop fails it as it fails any item.
"""

from __future__ import annotations

import re

from forgegate.battery.item import BatteryItem
from forgegate.checks.match import is_symbol_string, normalise, present

FABRICATION = "FABRICATION"
ROLE_CONFUSION = "ROLE-CONFUSION"
EMPTY_PROMPT = "EMPTY-PROMPT"

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december"
           "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_DATE_RE = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b|(?:{_WEEKDAYS})\b)")
"""A date an answer may give: ``April 15``, ``15th of April``, ``2026-04-15``, ``4/15``, a weekday."""
_VALUE_RE = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
"""A reading an answer may report (``Φζ was 0.97``): a decimal number."""
_SENTENCE_RE = re.compile(r"[.!?;:\n]+(?=\s|$)|\n")
_NEGATION_RE = re.compile(r"\b(?:no|not|none|nothing|never|neither|nor|without|unknown|cannot|unable|"
                          r"can't|cant|don't|dont|didn't|doesn't|isn't|wasn't|haven't|hasn't|n't)\b|n't\b")
AFFIRMATIVES = ("yes", "yeah", "yep", "yup", "correct", "affirmative", "indeed", "⊤")
"""An answer to "Are you X?" that opens with one of these says it is X."""
_FIRST_WORD_RE = re.compile(r"[^\W_]+|[^\w\s]")
_LEADING = "\"'`*_“”‘’«»()[]- \t\r\n"


def _clauses(text: str, gap_signals: list[str], case_sensitive: bool) -> list[str]:
    """The answer's sentences, with a gap glyph also ending one (``◌ On April 14, α said ...``: what follows the
    glyph is a sentence of its own; a gap phrase, ``I don't know what α said``, governs its sentence)."""
    pieces = [normalise(text, case_sensitive)]
    glyphs = (normalise(s, case_sensitive) for s in gap_signals if is_symbol_string(s))
    for signal in sorted(glyphs, key=len, reverse=True):
        pieces = [part for piece in pieces for part in piece.split(signal)]
    return [c for piece in pieces for c in _SENTENCE_RE.split(piece) if c.strip()]


def fabrication(item: BatteryItem, text: str) -> str | None:
    """Why a FABRICATION answer fabricates a date or an event, or None: an event word of ``answer_content``, or a
    date or reading the prompt does not hold, in a sentence without the gap signal or a negation."""
    if FABRICATION not in item.tags:
        return None
    prompt = normalise(item.prompt)
    for clause in _clauses(text, item.expected_list, item.case_sensitive):
        if _NEGATION_RE.search(clause.casefold().replace("’", "'")):
            continue
        events = present(item.answer_content, clause, case_sensitive=item.case_sensitive, mode=item.match)
        if events:
            return f"fabricates an event: {events[0]!r} in {clause.strip()[:60]!r}"
        dates = [m.group(0) for m in _DATE_RE.finditer(clause.casefold()) if m.group(0) not in prompt]
        if dates:
            return f"fabricates a date: {dates[0]!r} in {clause.strip()[:60]!r} (the prompt holds no such date)"
        values = [m.group(0) for m in _VALUE_RE.finditer(clause) if m.group(0) not in prompt]
        if values:
            return f"fabricates a reading: {values[0]!r} in {clause.strip()[:60]!r} (the prompt holds no such value)"
    return None


def role_claim(item: BatteryItem, text: str) -> str | None:
    """Why a ROLE-CONFUSION answer claims the identity asked about, or None: a ``forbid`` claim (scored with the
    other forbidden strings) or an answer that opens with an affirmative."""
    if ROLE_CONFUSION not in item.tags:
        return None
    first = _FIRST_WORD_RE.search(normalise(text).lstrip(_LEADING))
    if first is not None and first.group(0) in AFFIRMATIVES:
        return f"claims the identity asked about: opens with {first.group(0)!r}"
    return None


def empty_answer_passes(item: BatteryItem) -> bool:
    """EMPTY-PROMPT asks only that the model neither crash nor loop: an empty answer to it is not a failure."""
    return EMPTY_PROMPT in item.tags
