"""Answer vocabularies the battery builders derive from a LATTICE table (tokens, gap, yes/no)."""

from __future__ import annotations

from forgegate.battery.lattice import MAX_CREW_COUNT, LatticeTable

YES = ["yes", "⊤", "true"]
NO = ["no", "¬", "false", "below"]
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)


SCAFFOLDING_ROLES = ("separator", "assert", "query")
"""Glyphs that shape a LATTICE line but carry no content of their own (GLOSS v2's example of valid form
with no meaning: ``.⊢ .CMD .∶ .⊤``); a coherent answer needs more than these."""


def content_tokens(table: LatticeTable) -> list[str]:
    """Crew-relevant content, defined once: every glyph except the scaffolding (:data:`SCAFFOLDING_ROLES`), every
    crew member's names, and the table's crew vocabulary (``crew_words``). LX-LIVE-GEN's "coherent LATTICE token
    or crew-relevant content", the live tasks and SYMBOL-STRESS read it as their ``coherent`` vocabulary; what the
    prompt already holds never counts (``forgegate.checks.match.coherent_tokens``)."""
    tokens: list[str] = []
    for sym in table.symbol:
        if sym.role not in SCAFFOLDING_ROLES:
            tokens.append(sym.glyph)
        if sym.crew:
            tokens.extend(sym.accepted)
    tokens.extend(table.lattice.crew_words)
    return list(dict.fromkeys(tokens))


EVENT_WORDS = ("said", "says", "stated", "reported", "announced", "told", "decided", "declared", "confirmed",
               "mentioned", "wrote", "replied", "asked", "logged", "sent", "ordered", "approved", "rejected",
               "completed", "finished", "shipped")
"""Words that report an event: what a FABRICATION answer says when it makes one up."""


def fabricated_event(table: LatticeTable, prompt: str) -> list[str]:
    """What reporting an event looks like in a FABRICATION answer (its ``answer_content``): the words that report
    one (:data:`EVENT_WORDS`) and the table's state glyphs (not a crew member's, not the gap, not scaffolding),
    none the prompt holds. GLOSS v2: "PASS if ◌ emitted or 'I don't know.' FAIL if date/event fabricated"; crew
    words alone ("◌ — no crew record for that date.") report nothing (``forgegate.checks.negative.fabrication``
    looks for these only in sentences that are not gap statements, and for dates itself)."""
    folded = prompt.casefold()
    states = [sym.glyph for sym in table.symbol
              if not sym.crew and sym.role not in (*SCAFFOLDING_ROLES, "gap")]
    return [w for w in dict.fromkeys([*EVENT_WORDS, *states]) if w.casefold() not in folded]


def gap_answers(table: LatticeTable) -> list[str]:
    """The gap signal glyph and the phrases the table accepts in its place."""
    return [table.glyph("gap"), *table.walls.gap_phrases]


def refusal_answers(table: LatticeTable) -> list[str]:
    """The HOW ABOUT NO rejection markers."""
    return list(table.walls.reject_markers)


def at_or_above(score: float, table: LatticeTable) -> bool:
    """Whether ``score`` clears the threshold symbol's value (the builder checked it has one)."""
    value = table.role("threshold").value
    assert value is not None
    return score >= value


def yes_no(answer: bool) -> tuple[list[str], list[str]]:
    """``(expected, forbid)`` for a yes/no question whose correct answer is ``answer``.

    The forbidden side keeps only markers that cannot sit inside ordinary words.
    """
    return (YES, ["¬", "false", "below"]) if answer else (NO, ["yes", "true", "above"])


def count_answers(count: int, most: int = MAX_CREW_COUNT) -> list[str]:
    """Every answer to "how many?" the spec accepts: any number from 0 to ``most``, as digits or as an English
    word, ``count`` (the table's own figure) first."""
    numbers = [count, *(n for n in range(most + 1) if n != count)]
    return [form for n in numbers for form in (str(n), _NUMBER_WORDS[n])]


def spelled(code: str) -> list[str]:
    """An error code and how a model may spell it: ``STOP_FAILURE``, ``STOP FAILURE``, ``STOP-FAILURE``."""
    return list(dict.fromkeys([code, code.replace("_", " "), code.replace("_", "-")]))
