"""Answer vocabularies the battery builders derive from a LATTICE table (tokens, gap, yes/no)."""

from __future__ import annotations

from forgegate.battery.lattice import LatticeTable

YES = ["yes", "⊤", "true"]
NO = ["no", "¬", "false", "below"]
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)


def lattice_tokens(table: LatticeTable) -> list[str]:
    """Crew-relevant content: every glyph except bare separators, and every crew member's names."""
    tokens: list[str] = []
    for sym in table.symbol:
        if sym.role != "separator":
            tokens.append(sym.glyph)
        if sym.crew:
            tokens.extend(sym.accepted)
    return list(dict.fromkeys(tokens))


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


def count_answers(count: int) -> list[str]:
    """A count written as digits or (up to twenty) as an English word."""
    return [str(count), _NUMBER_WORDS[count]] if count < len(_NUMBER_WORDS) else [str(count)]


def spelled(code: str) -> list[str]:
    """An error code and how a model may spell it: ``STOP_FAILURE``, ``STOP FAILURE``, ``STOP-FAILURE``."""
    return list(dict.fromkeys([code, code.replace("_", " "), code.replace("_", "-")]))
