"""Model output as a page shows it: every control, bidi, zero-width and separator character made visible.

Escaping (the templates' autoescape) stops markup; this stops the characters that act
instead of print: an ANSI escape becomes ``␛``, a right-to-left override ``\\u202e``.
A C0 control becomes its Unicode control picture, DEL ``␡``, anything else its
Python escape. Newlines and tabs are layout and stay.
"""

from __future__ import annotations

import unicodedata

_SHOWN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _shown(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every character that would act (rather than print) replaced by a visible stand-in."""
    if text.isprintable():
        return text
    return "".join(c if c in "\n\t" or unicodedata.category(c) not in _SHOWN else _shown(c) for c in text)
