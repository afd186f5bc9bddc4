"""People's names compared as people read them: the one rule for annotators, the plan's author and reviewers.

T_GPT's ``author_primary_annotation_forbidden`` and the view's "two different annotators" compare names.
Compared as strings, ``ana`` and ``ana`` with a zero-width space, ``ａｎａ`` (fullwidth) or ``аna`` (Cyrillic
``а``) are four people, so the author passed as an annotator. ``name_key`` is what a name is compared by:
Unicode NFKC (fullwidth and compatibility forms become plain letters), format characters removed (zero-width
spaces and joiners, bidi marks, the byte-order mark), case folded, whitespace collapsed, and each letter of
another script that looks like a Latin one read as that Latin letter. ``name_problem`` refuses what cannot be
compared safely: a name that is empty after that, or one that mixes scripts (Latin with Cyrillic, Greek,
Armenian, Cherokee or any other letters, beyond the mixes CJK names use), which is how a look-alike is made.
"""

from __future__ import annotations

import unicodedata

_LOOKALIKE = str.maketrans({
    # Cyrillic letters (after case folding) drawn like Latin ones
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ζ": "z", "μ": "u",
    # Armenian
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "զ": "q",
    # Latin letters that case folding keeps apart from the ones they are read as (Turkish dotless i: "ı".upper()
    # is "I", whose fold is "i")
    "ı": "i",
})
"""Letters of Cyrillic, Greek and Armenian that a reader takes for Latin ones (a subset of Unicode's confusables
that covers every lower-case look-alike of a Latin letter in Cyrillic and Greek, and Armenian's common ones): a
name written wholly in one of those scripts reads as the Latin name it looks like."""
_SCRIPTLESS = frozenset({"MODIFIER"})
"""Letters used with any script (the Hawaiian okina of ``Hawaiʻi`` is a modifier letter): not a script of their own."""
_NAME_MIXES = (frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"}),
               frozenset({"LATIN", "CJK", "BOPOMOFO"}), frozenset({"LATIN", "CJK", "HANGUL"}))
"""The mixes of scripts one name may hold (Unicode UTS #39's "highly restrictive" profile: Japanese, Chinese and
Korean names write Latin and their own scripts together). Any other mix, Latin with Cyrillic, Greek, Armenian,
Cherokee or Lisu letters among them, is how a look-alike is made, whatever the script (issue 46)."""


def _script(char: str) -> str | None:
    """The script a letter belongs to, as the first word of its Unicode name (None for a non-letter)."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else None


def _folded(name: str) -> str:
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc"))
    # NFKC again after folding (Unicode's NFKC_Casefold): folding can leave a sequence NFKC composes ("ΐ")
    return " ".join(unicodedata.normalize("NFKC", text.casefold()).split())


def name_key(name: str) -> str:
    """What a person's name is compared by: NFKC, format and control characters removed, case folded, spaces
    collapsed, Cyrillic and Greek look-alikes read as Latin. Two names are one person when their keys are equal."""
    return _folded(name).translate(_LOOKALIKE)


def name_problem(name: str, who: str = "a name") -> str | None:
    """Why ``name`` cannot name a person here, or None: empty once invisible characters are removed, or letters of
    more than one script beyond the mixes of :data:`_NAME_MIXES` (a look-alike of another name)."""
    folded = _folded(name)
    if not folded:
        return f"{who} is empty once spaces and invisible (zero-width, format) characters are removed"
    scripts = {s for s in map(_script, folded) if s is not None and s not in _SCRIPTLESS}
    if len(scripts) > 1 and not any(scripts <= mix for mix in _NAME_MIXES):
        return (f"{who} {name!r} mixes {' and '.join(sorted(s.title() for s in scripts))} letters, which look alike: "
                "write it in one script")
    return None


def same_person(first: str, second: str) -> bool:
    """Two names are one person when they read the same (``name_key``)."""
    return name_key(first) == name_key(second)
