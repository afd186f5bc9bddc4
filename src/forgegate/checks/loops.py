"""Token-level loop detection: runaway phrases and identity-symbol escalation.

One detector for model responses, the streaming cut-off and the corpus audit, with GLOSS v2's
rule as its default (``forgegate.core.loop_settings``): the same token or short phrase repeated
>= 3 times in a row, with only punctuation or spaces between (``NOUS, NOUS, NOUS``, ``NOUS. NOUS. NOUS.``), is a
loop, and so is a symbol run like ``αααα``.

Tokens are read off the text (:func:`tokenize_for_loops`: words, single digits, runs of one
punctuation character), whoever tokenized it, so the same text gives the same finding in a
stream and after the fact, and a model whose tokenizer spells ``NOUS`` as ``N`` + ``OUS`` (or
Greek letter by letter) still repeats the word ``NOUS``. Whitespace is not a token; adjacent
digits merge into one number (``1000`` is one token) and adjacent copies of one character into
one run. A token's key is NFC-normalised, case-folded and stripped. In order, first finding wins:

1. *shape* scan: ``repeats`` strictly consecutive repeats of a token sequence of period
   1..``max_period``, every number read as ``#`` and every run of one character as ``c+`` (so
   ``4. Ananasaki`` / ``5. Ananasaki``, ``⊙ αα?`` / ``⊙ ααα?`` and a cycling weekday list
   repeat). One (primitive) period must carry ``min_unit_word_chars`` characters that are
   neither digits nor filler: counting ``1, 2, 3, ...`` or a times table is not a loop;
2. *exact* scan: the same with numbers as themselves (``NOUS NOUS NOUS``, ``0 0 0``);
3. *phrase chain*: a phrase of ``chain_tokens``+ tokens coming round ``repeats`` times in
   sequence with short varying gaps (``I am here to help ... I'm here to help ...``);
4. *character run* inside words: ``ΣΣΣΣ`` (even as one token), ``αβαβαβ``, ``hahahahaha``;
   digits and filler never (``1000``, ``....``).

In the scans a unit of any period repeats ``repeats`` times (GLOSS v2's ``phrase_tokens`` 1), so
``very, very, very`` (the 2-token unit ``very,``) and ``la femme, la femme, la femme`` are loops; with a higher
``phrase_tokens`` a shorter unit must repeat until a phrase of that many tokens (its smallest long-enough multiple)
has repeated ``repeats`` times. A unit of pure filler (``...``, ``|---|---|``) must cover
``filler_only_min_chars``. With a ``query_symbol`` (``⊙ X?`` prompts), three consecutive copies of it, or a loop
whose region holds two, is IDENTITY_LOOP.

Cost: O(tokens x max_period) comparisons (``map(operator.eq, ...)``, in C), O(tokens) phrase hashing, one
regex pass: 1-3 ms for a 300-token answer on a busy 2-core machine, so a stream may call it on the text so far
every few tokens. Plain Python, no numpy: every eval runs this, and a server eval loads no numerical library
(tests/test_light_core.py holds it).
"""

from __future__ import annotations

import operator
import re
import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Literal

from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS, LoopSettings
from forgegate.core.modes import FailureMode

LoopKind = Literal[FailureMode.RUNAWAY_LOOP, FailureMode.IDENTITY_LOOP]
"""The failure-mode labels a loop finding carries (``forgegate.core.modes.LOOP_MODES``)."""

_TOKEN_RE = re.compile(r"\s*(?:[^\W\d_]+|\d|([^\w\s]|_)\1*)|\s+")
_QUERY_RE = re.compile(r"⊙\s*([^\s?]+)\s*\?")
_DIGITS_RE = re.compile(r"\d+")
_RUN_RE = re.compile(r"(\S)\1+")
_CHAR_UNIT_RE = re.compile(r"(\S{1,4}?)\1{2,}")
_ANY_RUN_RE = re.compile(r"(\s*\S.*?)\1{2,}", re.DOTALL)  # a unit with at least one non-space character
_ASCII_FILLER = frozenset(string.punctuation)


@dataclass(frozen=True)
class LoopFinding:
    """A loop found in a text: what repeats, how often, and where."""

    kind: LoopKind
    period: int
    """Length of the repeating unit in units (tokens after merging digit runs and character runs);
    1 for a run of one short character unit inside a word."""
    repeats: int
    start: int
    end: int
    span: str

    def describe(self) -> str:
        return f"{self.kind}: {self.span!r} x{self.repeats} (period {self.period}) at chars {self.start}-{self.end}"


def tokenize_for_loops(text: str) -> list[str]:
    """Split text like a BPE tokenizer would, roughly: words with their leading space, single
    digits, runs of one punctuation character, whitespace. ``"".join(result) == text``."""
    return [m.group(0) for m in _TOKEN_RE.finditer(text)]


def query_symbol_of(prompt: str) -> str | None:
    """The symbol a ``⊙ X?`` identity query asks about (``"⊹: ⊙ α?"`` -> ``"α"``), else None."""
    match = _QUERY_RE.search(unicodedata.normalize("NFC", prompt))
    return match.group(1) if match else None


@lru_cache(maxsize=8192)
def is_filler(ch: str) -> bool:
    """Whitespace, ASCII punctuation/symbols, Unicode punctuation, box drawing, bullets."""
    if ch.isspace() or ch in _ASCII_FILLER or "\u2500" <= ch <= "\u259f":
        return True
    return unicodedata.category(ch).startswith("P") or ch in "•·"


@lru_cache(maxsize=65536)
def _content(text: str) -> int:
    """Characters that are not filler."""
    return sum(1 for ch in text if not is_filler(ch))


@lru_cache(maxsize=65536)
def _word_content(text: str) -> int:
    """Characters that are neither filler nor digits."""
    return sum(1 for ch in text if not is_filler(ch) and not ch.isdigit())


@lru_cache(maxsize=65536)
def _key(unit: str, shape: bool) -> str:
    key = unicodedata.normalize("NFC", unit).casefold().strip()
    if not key:
        return "<ws>"
    if shape:
        key = _RUN_RE.sub(lambda m: m.group(1) + "+", _DIGITS_RE.sub("#", key))
    return key


@dataclass
class _Units:
    """The units of a text, their offsets, keys and cumulative content counts."""

    texts: list[str]
    starts: list[int]
    ends: list[int]

    def __post_init__(self) -> None:
        self.shape_ids = _ids([_key(u, True) for u in self.texts])
        self.exact_ids = _ids([_key(u, False) for u in self.texts])
        self.content = list(accumulate((_content(u) for u in self.texts), initial=0))
        self.words = list(accumulate((_word_content(u) for u in self.texts), initial=0))


def _units(text: str) -> _Units:
    """The text's tokens (:func:`tokenize_for_loops`) with offsets, whitespace dropped, numbers and
    runs of one character merged."""
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for tok in tokenize_for_loops(text):
        start, pos = pos, pos + len(tok)
        if tok.isspace():
            continue
        if texts and _joins(texts[-1], tok):
            texts[-1] += tok
            ends[-1] = pos
            continue
        texts.append(tok)
        starts.append(start)
        ends.append(pos)
    return _Units(texts, starts, ends)


def _needed_repeats(period: int, params: LoopSettings) -> int:
    """How often a unit of ``period`` tokens must come round: a token ``repeats`` times; a longer unit
    until a phrase of ``phrase_tokens``+ tokens (its smallest long-enough multiple) repeated ``repeats``."""
    if period == 1:
        return params.repeats
    phrase = -(-params.phrase_tokens // period) * period
    return -(-params.repeats * phrase // period)


def _joins(prev: str, tok: str) -> bool:
    """Merge a digit continuing a number, or another copy of the character a run is made of."""
    if tok[0].isspace():
        return False
    if prev[-1].isdigit() and tok[0].isdigit():
        return True
    head = prev.lstrip()
    ch = tok[0]
    return bool(head) and not is_filler(ch) and set(head) == {ch} and set(tok) == {ch}


def _ids(keys: list[str]) -> list[int]:
    table: dict[str, int] = {}
    return [table.setdefault(k, len(table)) for k in keys]


def _true_runs(mask: list[bool]) -> list[tuple[int, int]]:
    """(start, length) of every run of True in a list of booleans."""
    runs: list[tuple[int, int]] = []
    start = -1
    for i, value in enumerate(mask):
        if value and start < 0:
            start = i
        elif not value and start >= 0:
            runs.append((start, i - start))
            start = -1
    if start >= 0:
        runs.append((start, len(mask) - start))
    return runs


def _primitive_period(ids: list[int], a: int, b: int, p: int) -> int:
    """The smallest d dividing p with ids[a:b] d-periodic (a times table has period one line,
    not two, even where only two lines together carry enough words)."""
    for d in range(1, p):
        if p % d == 0 and ids[a + d : b] == ids[a : b - d]:
            return d
    return p


def _scan(text: str, units: _Units, *, shape: bool, params: LoopSettings) -> LoopFinding | None:
    """Strictly periodic repeats of period 1..max_period, shortest period first."""
    n = len(units.texts)
    ids = units.shape_ids if shape else units.exact_ids
    content, words = units.content, units.words
    for p in range(1, min(params.max_period, n // 2) + 1):
        needed = _needed_repeats(p, params)
        if n <= (needed - 1) * p:  # the last repeat may be cut short by filler only
            continue
        shifted = ids[p:]
        if sum(map(operator.eq, ids, shifted)) < (needed - 2) * p + 1:
            continue
        for a, r in _true_runs(list(map(operator.eq, ids, shifted))):
            full, part = divmod(r + p, p)
            # a last repeat cut short only by filler ('..., la femme.' or the cap after 'live')
            tail_is_filler = part > 0 and content[a + p] - content[a + part] == 0
            repeats = full + tail_is_filler
            if repeats < needed:
                continue
            b = a + full * p + (part if tail_is_filler else 0)
            unit = _primitive_period(ids, a, a + full * p, p)
            if shape and words[a + unit] - words[a] < params.min_unit_word_chars:
                continue
            start, end = units.starts[a], units.ends[b - 1]
            if content[a + p] - content[a] == 0 and end - start < params.filler_only_min_chars:
                continue
            span = text[start : units.ends[a + p - 1]]
            return LoopFinding(FailureMode.RUNAWAY_LOOP, p, repeats, start, end, span)
    return None


def _phrase_chain(text: str, units: _Units, params: LoopSettings) -> LoopFinding | None:
    """A phrase of ``chain_tokens``+ tokens coming round ``repeats``+ times in sequence, each
    time after a gap no longer than ``chain_gap_factor`` times the shared part and within
    ``2 * max_period`` tokens of the last (``I am here to help you with your day. I'm here to
    help you with your day. I'm here ...``, a paragraph that restarts with the same clause):
    GLOSS v2's "same phrase (>= 3 tokens) appears >= 3 times in sequence" without periodicity."""
    n, size = len(units.texts), params.chain_tokens
    min_repeats, max_period = params.repeats, params.max_period
    if n < min_repeats * size:
        return None
    ids = units.shape_ids
    words = units.words
    seen: dict[tuple[int, ...], list[int]] = {}
    for i in range(n - size + 1):
        seen.setdefault(tuple(ids[i : i + size]), []).append(i)
    for starts in seen.values():
        if len(starts) < min_repeats:
            continue
        kept = [starts[0]]
        for s in starts[1:]:
            if s - kept[-1] >= size:
                kept.append(s)
        run: list[tuple[int, int]] = []  # consecutive links (start, shared length)
        for a, b in zip(kept, kept[1:], strict=False):
            shared = size
            while shared < b - a and b + shared < n and ids[a + shared] == ids[b + shared]:
                shared += 1
            if ((b - a) - shared > params.chain_gap_factor * shared or b - a > 2 * max_period
                    or int(words[a + shared] - words[a]) < params.chain_min_word_chars):
                run = []
                continue
            run.append((a, shared))
            if len(run) < min_repeats - 1:
                continue
            first = run[0][0]
            end = units.ends[min(n, b + shared) - 1]
            span = text[units.starts[first] : units.starts[run[1][0]]]
            return LoopFinding(FailureMode.RUNAWAY_LOOP, run[1][0] - first, len(run) + 1, units.starts[first], end,
                               span)
    return None


def _char_run(text: str, params: LoopSettings) -> LoopFinding | None:
    """A short unit of characters repeated inside a word: ``ΣΣΣΣ``, ``αβαβαβ``, ``hahahahaha``."""
    for m in _CHAR_UNIT_RE.finditer(text):
        unit = m.group(1)
        if _word_content(unit) == 0:
            continue
        repeats = len(m.group(0)) // len(unit)
        latin = all(ch.isascii() or is_filler(ch) for ch in unit)
        if latin:
            ok = len(m.group(0)) >= params.latin_char_run_chars and repeats >= params.char_run_repeats + 1
        else:
            ok = repeats >= (params.char_run_repeats + 1 if len(unit) == 1 else params.char_run_repeats)
        if ok:
            return LoopFinding(FailureMode.RUNAWAY_LOOP, 1, repeats, m.start(), m.end(), unit)
    return None


def _identity(text: str, symbol: str, runaway: LoopFinding | None) -> LoopFinding | None:
    """The queried symbol escalating: 3+ consecutive copies, or a loop whose region holds 2+."""
    symbol = unicodedata.normalize("NFC", symbol)
    m = re.search(f"(?:{re.escape(symbol)}){{3,}}", text)
    if m:
        return LoopFinding(FailureMode.IDENTITY_LOOP, 1, len(m.group(0)) // len(symbol), m.start(), m.end(), symbol)
    if runaway is not None and symbol * 2 in text[runaway.start : runaway.end]:
        return LoopFinding(FailureMode.IDENTITY_LOOP, runaway.period, runaway.repeats, runaway.start, runaway.end,
                           runaway.span)
    return None


def detect_loop(
    text: str,
    tokens: Sequence[str] | None = None,
    *,
    query_symbol: str | None = None,
    min_repeats: int | None = None,
    max_period: int | None = None,
    settings: LoopSettings | None = None,
) -> LoopFinding | None:
    """The first loop in ``text`` (IDENTITY_LOOP when it escalates ``query_symbol``), or None.

    ``settings`` None is GLOSS v2's rule (``SPEC_LOOP_SETTINGS``); ``min_repeats`` and
    ``max_period``, when given, override its ``repeats`` and ``max_period``. ``tokens`` (the
    model's token texts) are accepted for callers that have them but do not change the finding:
    the tokens are read off the text, so a stream and a stored answer of the same text agree.
    """
    params = settings or SPEC_LOOP_SETTINGS
    if min_repeats is not None or max_period is not None:
        if (min_repeats is not None and min_repeats < 2) or (max_period is not None and max_period < 1):
            raise ValueError("min_repeats must be >= 2 and max_period >= 1")
        params = params.model_copy(update={"repeats": min_repeats or params.repeats,
                                           "max_period": max_period or params.max_period})
    del tokens  # the finding is a function of the text alone (see the module docstring)
    units = _units(text)
    runaway = None
    for shape in (True, False):
        runaway = _scan(text, units, shape=shape, params=params)
        if runaway is not None:
            break
    if runaway is None:
        runaway = _phrase_chain(text, units, params)
    if runaway is None:
        runaway = _char_run(text, params)
    if query_symbol:
        identity = _identity(text, query_symbol, runaway)
        if identity is not None:
            return identity
    return runaway


def hard_abort(text: str) -> LoopFinding | None:
    """LX-IDENTITY's hard abort: any character sequence three times in a row (``NOUSNOUSNOUS``, ``ΣΣΣ``, ``ααα``),
    labelled IDENTITY_LOOP. Stricter than :func:`detect_loop` on purpose: the spec says "the same character
    sequence x3 or more (e.g., αααα) ... immediately scores 0", with no allowance for a word or a glyph. A unit made
    only of whitespace, digits and punctuation (``1000``, ``...``, ``---``, a code fence) is a number or layout, not
    a sequence an answer escalates, and is not counted (``benchmarks/bench_loop_rule.py`` measures the rest)."""
    text = unicodedata.normalize("NFC", text)
    for m in _ANY_RUN_RE.finditer(text):
        unit = m.group(1)
        if all(ch.isdigit() or is_filler(ch) for ch in unit):
            continue
        return LoopFinding(FailureMode.IDENTITY_LOOP, 1, len(m.group(0)) // len(unit), m.start(), m.end(), unit)
    return None
