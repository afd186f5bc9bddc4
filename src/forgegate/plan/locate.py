"""Finding the line of a key or table in TOML text, since tomllib keeps no positions.

``TomlLocator(text).line_of(("arms", 1, "backend"))`` is the line of ``backend =``
inside the second ``[[arms]]`` table; when the key is absent it falls back to the
deepest enclosing table or key that is present (a missing field points at its table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BARE = r"[A-Za-z0-9_\-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_KEY_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_ARRAY_HEADER = re.compile(rf"^\s*\[\[\s*({_DOTTED})\s*\]\]\s*(?:#.*)?$")
_TABLE_HEADER = re.compile(rf"^\s*\[\s*({_DOTTED})\s*\]\s*(?:#.*)?$")
_KEY_LINE = re.compile(rf"^\s*({_DOTTED})\s*=")
_PART = re.compile(_KEY_PART)

Path = tuple[str | int, ...]


def _split_dotted(dotted: str) -> list[str]:
    parts: list[str] = []
    for match in _PART.finditer(dotted):
        token = match.group(0)
        if token[:1] in "\"'":
            token = token[1:-1]
        parts.append(token)
    return parts


def _open_brackets(line: str) -> int:
    """Net '[' minus ']' outside strings and comments (for multi-line arrays)."""
    depth = 0
    quote: str | None = None
    escaped = False
    for char in line:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


class TomlLocator:
    """Maps key paths (as pydantic reports them) to 1-based line numbers of a TOML text."""

    def __init__(self, text: str) -> None:
        self.lines: dict[Path, int] = {}
        self._index(text)

    def _record(self, path: Path, line: int) -> None:
        self.lines.setdefault(path, line)

    def _index(self, text: str) -> None:
        table: Path = ()
        array_counts: dict[Path, int] = {}
        depth = 0
        in_multiline: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_multiline:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            if depth > 0:
                depth += _open_brackets(line)
                continue
            header = _ARRAY_HEADER.match(line)
            if header:
                base = self._resolve(_split_dotted(header.group(1)), array_counts)
                index = array_counts.get(base, 0)
                array_counts[base] = index + 1
                table = (*base, index)
                self._record(base, number)
                self._record(table, number)
                continue
            header = _TABLE_HEADER.match(line)
            if header:
                table = self._resolve(_split_dotted(header.group(1)), array_counts)
                self._record(table, number)
                continue
            key = _KEY_LINE.match(line)
            if key:
                path = (*table, *_split_dotted(key.group(1)))
                for cut in range(len(table) + 1, len(path) + 1):
                    self._record(path[:cut], number)
                rest = line[key.end():]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_multiline = quote
                depth = max(0, _open_brackets(rest))

    @staticmethod
    def _resolve(parts: Sequence[str], array_counts: dict[Path, int]) -> Path:
        """A header's path, with the current index of every enclosing array of tables."""
        path: list[str | int] = []
        for position, part in enumerate(parts):
            path.append(part)
            count = array_counts.get(tuple(path))
            if count and position < len(parts) - 1:
                path.append(count - 1)
        return tuple(path)

    def line_of(self, loc: Sequence[str | int]) -> int | None:
        """The line of the deepest part of ``loc`` present in the text (union tags are skipped)."""
        best: int | None = self.lines.get(())
        path: Path = ()
        for part in loc:
            candidate = (*path, part)
            if any(known[: len(candidate)] == candidate for known in self.lines):
                path = candidate
                best = self.lines.get(path, best)
            elif isinstance(part, str) and (part[:1].isupper() or "[" in part):
                continue  # pydantic's union member tags, e.g. 'tuple[int, ...]' or 'SeedRange'
            else:
                break
        return best
