"""Reading a directory tree of UTF-8 text files (a source corpus or a renamed copy)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.audit.wordmatch import nfc
from forgegate.core.globs import glob_problem
from forgegate.errors import InputError
from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, read_text_or_input_error


@dataclass(frozen=True)
class TextFile:
    """One file of a tree, its text in NFC."""

    path: Path
    text: str


def read_tree(directory: Path, pattern: str = "**/*.txt") -> list[TextFile]:
    """Every file under ``directory`` matching ``pattern``, sorted by path; errors say what to do."""
    directory = Path(directory)
    if not directory.exists():
        raise InputError(directory, "directory not found", hint="check the path")
    if not directory.is_dir():
        raise InputError(directory, "not a directory", hint="pass the folder that holds the text files")
    problem = glob_problem(pattern)
    if problem is not None:
        raise InputError("--glob", problem, hint="a glob selects files inside the folder it is applied to")
    root = directory.resolve()
    files: list[TextFile] = []
    for path in sorted(p for p in directory.glob(pattern) if p.is_file()):
        if not path.resolve().is_relative_to(root):
            raise InputError(path, f"leads outside {directory} (a link?): the audit reads only files inside it",
                             hint="copy the file into the folder, or remove the link")
        files.append(TextFile(path, nfc(read_text_or_input_error(path, what="text file", limit=MAX_CORPUS_FILE_BYTES))))
    if not files:
        raise InputError(directory, f"no files matching '{pattern}'",
                         hint="point at the folder of .txt files, or pass --glob")
    return files


def word_count(files: list[TextFile]) -> int:
    """Whitespace-separated tokens over the whole tree."""
    return sum(len(f.text.split()) for f in files)
