"""Which glob patterns may select files under a folder: the one rule for ``[leak_audit] glob`` and ``--glob``.

``Path.glob`` follows ``..`` and accepts nothing else as a root, so ``../../../../etc/*`` under ``source``
reads the system's files as the audit's corpus. A pattern stays inside its folder when it is relative and no
part of it is ``..``.
"""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` could select files outside the folder it is applied to, or None."""
    if not pattern.strip():
        return "the glob is empty: name the files to read, e.g. **/*.txt"
    if PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).is_absolute() or pattern.startswith("~"):
        return f"glob {pattern!r} is absolute: it is applied inside the folder, so write it relative (e.g. **/*.txt)"
    parts = pattern.replace("\\", "/").split("/")
    if ".." in parts:
        return f"glob {pattern!r} climbs out of the folder with '..': it may only select files inside it"
    return None
