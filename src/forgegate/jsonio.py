"""Reading user JSONL files with file:line:field errors, and writing JSON atomically."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from forgegate.errors import InputError

M = TypeVar("M", bound=BaseModel)


def iter_jsonl_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; bad UTF-8 or JSON is an InputError."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file not found", hint="check the path") from None
    for number, line_bytes in enumerate(raw.split(b"\n"), start=1):
        if not line_bytes.strip():
            continue
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(path, f"invalid UTF-8 at byte {exc.start}", line=number,
                             hint="save the file as UTF-8") from None
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"bad JSON: {exc.msg} (column {exc.colno})", line=number,
                             hint="each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", line=number)
        yield number, obj


def validation_to_input_error(path: Path, line: int | None, exc: ValidationError) -> InputError:
    """Turn pydantic's first error into a file:line:field message a user can act on."""
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field (typo?)"
    elif first["type"] == "missing":
        message = "required field is missing"
    return InputError(path, message, line=line, field=loc)


def read_jsonl_models(path: Path, model: type[M]) -> list[tuple[int, M]]:
    """Every line of ``path`` validated as ``model``, with its line number."""
    rows: list[tuple[int, M]] = []
    for number, obj in iter_jsonl_lines(path):
        try:
            rows.append((number, model.model_validate(obj)))
        except ValidationError as exc:
            raise validation_to_input_error(path, number, exc) from None
    return rows


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON so a crash leaves either the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False, indent=2, default=str)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
