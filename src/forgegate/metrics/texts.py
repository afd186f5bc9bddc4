"""Reading the text files instruments compare against: UTF-8 (BOM allowed), Gutenberg wrapper cut."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from forgegate.errors import InputError
from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, decode_utf8_or_input_error, read_text_or_input_error

_GUTENBERG_MARKER = re.compile(r"^\s*\*\*\* ?(START|END) OF (THE|THIS) PROJECT GUTENBERG.*$",
                               re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class LoadedText:
    """A text file's body and whether a Project Gutenberg header/footer was cut from it."""

    path: Path
    text: str
    gutenberg_stripped: bool

    @property
    def words(self) -> int:
        return len(self.text.split())


def strip_gutenberg(text: str) -> tuple[str, bool]:
    """The text between ``*** START OF`` and ``*** END OF`` marker lines, when both are present."""
    markers = list(_GUTENBERG_MARKER.finditer(text))
    starts = [m for m in markers if m.group(1).upper() == "START"]
    ends = [m for m in markers if m.group(1).upper() == "END"]
    if not starts or not ends or ends[-1].start() <= starts[0].end():
        return text, False
    return text[starts[0].end():ends[-1].start()], True


def read_text(path: Path, *, strip: bool = True) -> LoadedText:
    """Read ``path`` as UTF-8; with ``strip`` a Gutenberg header/footer is cut (and the cut is reported)."""
    path = Path(path)
    return text_of(path, read_text_or_input_error(path, what="text file", limit=MAX_CORPUS_FILE_BYTES), strip=strip)


def text_from_bytes(path: Path, raw: bytes, *, strip: bool = True) -> LoadedText:
    """``raw`` (the bytes of ``path``, read once by the caller) as :func:`read_text` would read the file."""
    return text_of(Path(path), decode_utf8_or_input_error(Path(path), raw, bom=True), strip=strip)


def text_of(path: Path, text: str, *, strip: bool = True) -> LoadedText:
    """A decoded text with CRLF folded and, with ``strip``, its Gutenberg header/footer cut."""
    text = text.replace("\r\n", "\n")
    body, stripped = strip_gutenberg(text) if strip else (text, False)
    if not body.strip():
        raise InputError(path, "the file has no text", hint="pass a non-empty text file")
    return LoadedText(path, body, stripped)
