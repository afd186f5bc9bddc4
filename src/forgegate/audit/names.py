"""Which names the rename removed: from a rename map file, or derived from source vs renamed.

Rename map formats (both map a canonical surface, as written in the source, to its
replacement; a name with several surfaces, e.g. ``Elizabeth`` and ``Lizzy``, takes one
line per surface):

* JSON (``.json``): one object, ``{"Elizabeth": "Margaret", "Darcy": "Holloway"}``.
* TSV (``.tsv``): one ``canonical<TAB>replacement`` per line; blank lines and lines
  starting with ``#`` are skipped.

Without a map, the removed names are the capitalised word types that occur in the
source tree at least once *mid-sentence* (so a common word capitalised only because it
opens a sentence never counts) and nowhere in any renamed tree. That difference is only
honest when each renamed tree is a full copy of the source, so derivation refuses trees
whose word counts differ by more than ``MAX_WORD_RATIO_DRIFT``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from forgegate.audit.texts import TextFile, word_count
from forgegate.audit.wordmatch import nfc
from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_text_or_input_error

MAX_WORD_RATIO_DRIFT = 0.10
_WORD = re.compile(r"[^\W\d_]+")
_HONORIFIC = re.compile(r"(?:^|\W)(?:Mr|Mrs|Ms|Mme|Mlle|Dr|St|Sr|Jr|Messrs|Col|Capt|Gen|Rev|Lt)\.\s*$")
_MID_SENTENCE_BEFORE = re.compile(r"[^\W_]|,")


def load_rename_map(path: Path) -> dict[str, str]:
    """Read a rename map (``.json`` or ``.tsv``) into canonical -> replacement."""
    path = Path(path)
    text = read_text_or_input_error(path, what="rename map", hint="check the path given to --map")
    if path.suffix.lower() == ".json":
        mapping = _parse_json_map(path, text)
    elif path.suffix.lower() == ".tsv":
        mapping = _parse_tsv_map(path, text)
    else:
        raise InputError(path, f"unknown rename map format '{path.suffix}'",
                         hint="use a .json object or a .tsv file of canonical<TAB>replacement lines")
    if not mapping:
        raise InputError(path, "the rename map is empty", hint="list at least one canonical name")
    return mapping


def _parse_json_map(path: Path, text: str) -> dict[str, str]:
    try:
        obj = parse_json_strict(text)  # a name given twice, or a map nested 100,000 deep, is refused
    except json.JSONDecodeError as exc:
        raise InputError(path, f"bad JSON: {exc.msg}", line=exc.lineno,
                         hint='the map is one object: {"Canonical": "Replacement", ...}') from None
    except JsonProblem as exc:
        raise InputError(path, exc.message, field=exc.field, hint=exc.hint) from None
    if not isinstance(obj, dict):
        raise InputError(path, "expected one JSON object of canonical -> replacement",
                         hint='e.g. {"Elizabeth": "Margaret"}')
    mapping: dict[str, str] = {}
    for key, value in obj.items():
        if not isinstance(value, str):
            raise InputError(path, "the replacement must be a string", field=key)
        mapping[_check_entry(path, None, key, value)] = nfc(value.strip())
    return mapping


def _parse_tsv_map(path: Path, text: str) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise InputError(path, f"expected 2 tab-separated columns, got {len(parts)}", line=number,
                             hint="write canonical<TAB>replacement")
        key = _check_entry(path, number, parts[0], parts[1])
        if key in mapping:
            raise InputError(path, f"canonical name '{key}' appears twice", line=number)
        mapping[key] = nfc(parts[1].strip())
    return mapping


def _check_entry(path: Path, line: int | None, key: str, value: str) -> str:
    key, value = nfc(key.strip()), nfc(value.strip())
    if not key or not value:
        raise InputError(path, "empty canonical name or replacement", line=line,
                         hint="every entry needs both a canonical name and its replacement")
    if key == value:
        raise InputError(path, f"'{key}' is mapped to itself", line=line, field=key,
                         hint="a name the rename keeps does not belong in the map")
    return key


def derive_removed_names(source: list[TextFile], renamed: list[list[TextFile]]) -> list[str]:
    """Capitalised word types used mid-sentence in ``source`` and absent from every renamed tree."""
    source_words = word_count(source)
    for tree in renamed:
        ratio = word_count(tree) / source_words if source_words else 0.0
        if abs(ratio - 1.0) > MAX_WORD_RATIO_DRIFT:
            raise InputError(
                tree[0].path.parent,
                f"renamed tree has {ratio:.0%} of the source's words; a names difference "
                "against a partial copy would report every word it lacks as a removed name",
                hint="give a full renamed copy, or pass the names with --map",
            )
    candidates = set()
    for file in source:
        candidates |= proper_noun_types(file.text)
    present: set[str] = set()
    for tree in renamed:
        for file in tree:
            present.update(m.group(0) for m in _WORD.finditer(file.text))
    return sorted(candidates - present)


def proper_noun_types(text: str) -> set[str]:
    """Capitalised (not all-caps) word types that occur at least once mid-sentence."""
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word in found or not word[0].isupper() or not any(c.islower() for c in word[1:]):
            continue
        before = text[max(0, match.start() - 12): match.start()]
        stripped = before.rstrip()
        if stripped and (_MID_SENTENCE_BEFORE.fullmatch(stripped[-1]) or _HONORIFIC.search(stripped)):
            found.add(word)
    return found
