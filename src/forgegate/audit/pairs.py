"""Reading built SFT pairs for the audits (the row schema is ``forgegate.fixture.pairs.SftPair``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from forgegate.audit.wordmatch import nfc
from forgegate.errors import InputError
from forgegate.fixture.pairs import SftPair
from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, read_bytes_or_input_error, read_jsonl_models


@dataclass(frozen=True)
class Pair:
    """A pair with where it came from; texts in NFC."""

    path: Path
    line: int
    split: str
    instruction: str
    response: str


def read_pairs(paths: list[Path], raw: Mapping[Path, bytes] | None = None) -> list[Pair]:
    """Every pair of every file, in order; an empty file is an error, not a clean result. ``raw``: each file's
    bytes when the caller read (and hashed) them, so the pairs audited are the bytes on its record."""
    if not paths:
        raise InputError("--pairs", "no pairs file given", hint="pass one or more JSONL files of pairs")
    pairs: list[Pair] = []
    for path in paths:
        rows = read_jsonl_models(Path(path), SftPair, read_bytes_or_input_error(
            Path(path), what="pairs file", limit=MAX_CORPUS_FILE_BYTES) if raw is None else raw[path])
        if not rows:
            raise InputError(path, "no pairs in the file",
                             hint='each line is {"split": ..., "instruction": ..., "response": ...}')
        pairs.extend(Pair(Path(path), line, row.split, nfc(row.instruction), nfc(row.response))
                     for line, row in rows)
    return pairs
