"""Characters that act instead of print: shown visibly in reports, refused in prompts.

Model output may carry terminal escape sequences (ESC, BEL, BS, U+009B), bidi
overrides that reorder what a reader sees (U+202E), zero-width characters that
hide text (U+200B, U+FEFF) and, from a JSON escape, lone surrogates that no UTF-8
file can hold. A report must show such a character, never emit it: ``cat report.md``
would replay the model's escape sequences, and a reviewer would read reordered text.
``visible`` is the one place that decides how they look: a C0 control becomes its
Unicode control picture (ESC -> ``␛``), DEL becomes ``␡``, and every other one its
Python escape (``\\x9b``, ``\\u202e``), which is plain ASCII and means nothing to
HTML, Markdown or a terminal.

A prompt is text the user wrote and forgegate sends: a control character or a lone
surrogate there is a mistake in the file (``prompt_problem`` says where), not a test.
"""

from __future__ import annotations

import unicodedata

_SHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Controls, format characters (bidi, zero-width, tags), surrogates, line and paragraph separators."""
_PROMPT_CONTROLS_ALLOWED = frozenset("\n\t\r")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ␇ ␈ ␛ ...
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every control, bidi, zero-width, separator and surrogate character shown, not emitted."""
    if text.isprintable():
        return text
    lines = text.split("\n")  # newlines and tabs are layout, kept as they are
    return "\n".join(_visible_line(line, index < len(lines) - 1) for index, line in enumerate(lines))


def _visible_line(line: str, newline_follows: bool) -> str:
    if line.isprintable():  # most lines of a report: checked at C speed, left as they are
        return line
    out: list[str] = []
    crlf_at = len(line) - 1 if newline_follows else -1
    for index, char in enumerate(line):
        if char.isprintable() or char == "\t" or (char == "\r" and index == crlf_at):  # the CR of a CRLF
            out.append(char)
        elif unicodedata.category(char) in _SHOWN_CATEGORIES:
            out.append(_escape(char))
        else:
            out.append(char)  # e.g. a no-break space or a private-use character: printed as it is
    return "".join(out)


def describe_char(char: str) -> str:
    """``U+001B (␛)`` or ``U+202E (RIGHT-TO-LEFT OVERRIDE)``: one character named for an error message."""
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"U+{code:04X} ({_escape(char)})"
    return f"U+{code:04X} ({unicodedata.name(char, '') or _escape(char)})"


def prompt_problem(text: str) -> str | None:
    """What is wrong with prompt text: the first control character (other than newline, tab, CR) or lone
    surrogate, and where; ``None`` when there is none."""
    if text.isprintable():
        return None
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if category == "Cs":
            return (f"lone surrogate {describe_char(char)} at character {index + 1}: not valid Unicode, "
                    "it cannot be sent")
        if category == "Cc" and char not in _PROMPT_CONTROLS_ALLOWED:
            return (f"control character {describe_char(char)} at character {index + 1}: a prompt is text; "
                    "remove it")
    return None


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet evaluate a cell (a formula, or a DDE payload after a tab or CR): OWASP's list."""
_CELL_QUOTE = "'"


def spreadsheet_cell(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet evaluates: a leading ``'`` when it starts like a formula.

    Model output goes into sheets people open in a spreadsheet; ``=HYPERLINK(...)`` must stay text. A text
    that already starts with ``'`` gets one more, so ``original_cell`` restores every text exactly.
    """
    return _CELL_QUOTE + text if text.startswith((*FORMULA_STARTS, _CELL_QUOTE)) else text


def original_cell(cell: str) -> str:
    """The text ``spreadsheet_cell`` was given: one leading ``'`` removed (spreadsheets hide it too)."""
    return cell[1:] if cell.startswith(_CELL_QUOTE) else cell
