"""Reading a user's TOML file (plan, gate config) with every error at its file:line.

tomllib keeps no positions, so ``TomlLocator(text).line_of(("arms", 1, "backend"))``
finds the line of ``backend =`` inside the second ``[[arms]]`` table; when the key is
absent it falls back to the deepest enclosing table or key that is present (a missing
field points at its table). ``parse_toml`` reads the text (a byte-order mark is
accepted) and ``validate_toml`` checks it against a model in strict mode, turning
pydantic's first error into the message ``forgegate.jsonio.pydantic_message`` writes.
"""

from __future__ import annotations

import inspect
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path as FilePath
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from forgegate.errors import InputError, closest
from forgegate.jsonio import first_error, pydantic_message

M = TypeVar("M", bound=BaseModel)
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)|\(at end of document\)")

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
        self.repeated: dict[Path, tuple[int, int]] = {}
        """Key paths written twice: (first line, second line), for tomllib's nameless "Cannot overwrite"."""
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
                if path in self.lines and path not in self.repeated:
                    self.repeated[path] = (self.lines[path], number)
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


def parse_toml(path: FilePath | str, text: str) -> dict[str, Any]:
    """The TOML table of ``text`` (read from ``path``, which names the file in errors); bad TOML is an
    InputError at the parser's line, and a key written twice is named with both of its lines."""
    text = text.removeprefix("\ufeff")  # editors write a byte-order mark; it is not a TOML character
    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib nests by recursion: a few hundred ``[`` exhaust it
        raise InputError(path, "nested too deeply", line=_most_nested_line(text),
                         hint="a plan or gate config nests a few levels") from None
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        line = int(match.group(1)) if match and match.group(1) else None
        message = f"not valid TOML: {_TOML_LINE.sub('', str(exc)).strip()}"
        if str(exc).startswith("Cannot overwrite a value"):
            twice = TomlLocator(text).repeated
            found = [(key, lines) for key, lines in twice.items() if line is None or lines[1] == line]
            if found:
                key, (first, line) = found[0]
                name = ".".join(str(part) for part in key if not isinstance(part, int))
                message = f"key '{name}' is written twice (first on line {first})"
        raise InputError(path, message, line=line) from None
    except ValueError as exc:  # Python's own limit on the digits of an integer
        long_number = re.search(r"\d{4300}", text)
        line = text.count("\n", 0, long_number.start()) + 1 if long_number else None
        raise InputError(path, f"number too long: {str(exc).split(':')[0].lower()}", line=line) from None


def _most_nested_line(text: str) -> int | None:
    counts = [line.count("[") + line.count("{") for line in text.splitlines()]
    return counts.index(max(counts)) + 1 if counts else None


def _model_at(model: type[BaseModel], loc: Sequence[str | int]) -> type[BaseModel] | None:
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int) or part not in current.model_fields:
            continue
        current = _first_model(current.model_fields[part].annotation)
    return current


def _first_model(annotation: Any) -> type[BaseModel] | None:
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _first_model(arg)
        if found is not None:
            return found
    return None


def _tuples(value: Any) -> Any:
    """TOML arrays as tuples: the models hold tuples (frozen, hashable) and strict mode takes no list for one."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


def _is_union_tag(part: str | int) -> bool:
    """pydantic's name for a union member (``'tuple[int, ...]'``, ``'SeedRange'``), not a key of the file."""
    return isinstance(part, str) and (part[:1].isupper() or "[" in part)


def _file_loc(locator: TomlLocator, loc: Sequence[str | int]) -> tuple[str | int, ...]:
    """``loc`` without union tags: a part the file has (a key such as ``"LX-A"``) is kept even when it looks
    like a tag; a part it lacks is dropped only when it looks like one (a missing field is kept)."""
    kept: tuple[str | int, ...] = ()
    for part in loc:
        candidate = (*kept, part)
        if any(known[: len(candidate)] == candidate for known in locator.lines) or not _is_union_tag(part):
            kept = candidate
    return kept


def validation_error(path: FilePath | str, locator: TomlLocator, root: type[BaseModel],
                     exc: ValidationError) -> InputError:
    """pydantic's first error as an InputError at the line of its key, with a suggestion for a typo."""
    first = first_error(exc)
    loc = _file_loc(locator, first["loc"])
    message = pydantic_message(first)
    hint: str | None = None
    if first["type"] == "extra_forbidden":
        message = "unknown field (typo?)"
        parent = _model_at(root, loc[:-1])
        if parent is not None:
            allowed = tuple(parent.model_fields)
            near = closest(str(loc[-1]), allowed)
            hint = f"did you mean '{near}'?" if near else f"allowed here: {', '.join(allowed)}"
    elif first["type"] == "missing":
        hint = "forgegate has no default for it: write it in the file"
    field = ".".join(str(p) for p in loc) or None
    return InputError(path, message, line=locator.line_of(loc), field=field, hint=hint)


def validate_toml(path: FilePath | str, text: str, data: dict[str, Any], model: type[M]) -> M:
    """``data`` (parsed from ``text``) validated as ``model`` in strict mode: no value is coerced."""
    try:
        return model.model_validate(_tuples(data), strict=True)
    except ValidationError as exc:
        raise validation_error(path, TomlLocator(text), model, exc) from None
