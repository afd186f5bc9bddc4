"""Lines that read whole at a given width: facts packed so that no label leaves its value, text wrapped whole.

Rich wraps a long line at any space, which in a CI log at 80 columns left ``Model:`` at the end of one line and
the model's name on the next, ``gate`` above ``gloss-v2``, and a ``forgegate show`` command broken between its run
id and its item (issue 45). Here the caller says where a line may break: between the pieces it hands over (a fact
each, with its own separator), or, for prose such as a rule's reason, at spaces only, never inside an id
(``LX-Z-01``). The lines come back as plain text; the caller escapes and prints them with ``soft_wrap=True``, so
that nothing wraps them again.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence


def packed(pieces: Sequence[str], width: int) -> list[str]:
    """``pieces`` (each a fact with the separator that follows it: ``"run eval-…; "``) joined into lines of at
    most ``width`` columns, broken only between pieces; a separator's spaces at a line's end are dropped. A piece
    wider than ``width`` has a line of its own and runs long: it is never broken inside."""
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if line and len(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines


def wrapped(text: str, width: int, *, indent: str = "", hanging: str = "    ") -> list[str]:
    """``text`` whole in lines of at most ``width`` columns: the first line starts with ``indent``, the others
    with ``hanging``; broken at spaces only (an id such as ``LX-Z-01`` is never split at its hyphens, nor parted
    from the bracket after it; a word wider than the line is cut across lines, never dropped)."""
    width = max(len(hanging) + 10, width)
    glued = text.replace(" (", _GLUE + "(")  # "LX-Z-04 (RUNAWAY_LOOP)": a bracket stays with the word before it
    lines = [line.replace(_GLUE, " ") for line in _wrap(glued, width, indent, hanging, cut=False)]
    if any(len(line) > width for line in lines):  # a word and its bracket wider than a line: part them after all
        lines = _wrap(text, width, indent, hanging, cut=True)
    return lines or [indent.rstrip()]


def _wrap(text: str, width: int, indent: str, hanging: str, *, cut: bool) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=hanging, break_long_words=cut,
                         break_on_hyphens=False)


_GLUE = "\u00a0"
"""A space textwrap does not break at (it breaks at ASCII whitespace only); a space again once wrapped."""
