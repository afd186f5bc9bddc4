"""The starter gate ``forgegate init`` writes: a small battery of every eval type, its gate and a README line.

A newcomer's first verdict should be on their own questions, not on the bundled GLOSS v2 battery (which asks
about LATTICE and fails every general model). The files are package data (``data/starter/``), copied as they
are, so that what ``init`` writes is what the docs quote and what the tests run.
"""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

from forgegate.errors import UsageError
from forgegate.jsonio import file_kind_problem

STARTER_FILES: tuple[str, ...] = ("battery.jsonl", "gate.toml", "README.md")
"""What ``forgegate init`` writes, in this order."""


def starter_source(name: str) -> Path:
    """The packaged starter file ``name`` (one of :data:`STARTER_FILES`)."""
    path = Path(str(files("forgegate").joinpath("data", "starter", name)))
    if not path.is_file():
        raise FileNotFoundError(f"forgegate package data missing: {path} (reinstall forgegate)")
    return path


def write_starter(directory: Path, *, force: bool = False) -> list[Path]:
    """Copy the starter files into ``directory`` (made if missing); a file already there is refused unless
    ``force``, so that ``init`` never overwrites a battery someone has edited."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is a file, not a folder: give init a folder to write into")
    targets = [directory / name for name in STARTER_FILES]
    present = [str(t) for t in targets if t.exists()]
    if present and not force:
        raise UsageError(f"{', '.join(present)} already exist(s): init never overwrites your files; pass --force "
                         "to replace them, or give init another folder")
    for target in targets:  # all checked before one is written: a refused init leaves the folder as it was
        kind = file_kind_problem(target.stat().st_mode) if target.exists() else None
        if kind is not None:
            raise UsageError(f"{target} is {kind}, not a file: init replaces only regular files (even with --force); "
                             "move it aside, or give init another folder")
    directory.mkdir(parents=True, exist_ok=True)
    for target in targets:
        shutil.copyfile(starter_source(target.name), target)
    return targets
