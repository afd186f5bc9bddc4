"""Reading user text and JSONL files with file:line:field errors, and writing JSON atomically."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from forgegate.errors import InputError, did_you_mean

M = TypeVar("M", bound=BaseModel)


def read_bytes_or_input_error(path: Path, *, what: str = "file", hint: str = "check the path") -> bytes:
    """The file's bytes; a missing file or a directory is an InputError, not a traceback.

    ``what`` names the file in the message (``"plan file not found"``); ``hint`` says what to pass.
    """
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, f"{what} not found", hint=hint) from None
    except IsADirectoryError:
        raise InputError(path, f"is a directory, not a {what}", hint=f"pass a {what}, not a folder") from None


def decode_utf8_or_input_error(path: Path, raw: bytes, *, bom: bool = False) -> str:
    """``raw`` decoded as UTF-8 (``bom``: a leading byte-order mark is dropped); bad bytes are an
    InputError naming the line and the byte offset (in the file) of the first invalid byte."""
    try:
        return raw.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, f"invalid UTF-8 at byte {exc.start}", line=line,
                         hint="save the file as UTF-8") from None


def read_text_or_input_error(path: Path, *, what: str = "file", hint: str = "check the path",
                             bom: bool = False) -> str:
    """The file's text, decoded as UTF-8; a missing file, a directory or invalid UTF-8 is an InputError
    (file, line and byte offset of the first invalid byte). Arguments as for the two functions it joins."""
    return decode_utf8_or_input_error(path, read_bytes_or_input_error(path, what=what, hint=hint), bom=bom)


def iter_jsonl_lines(path: Path, raw: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; bad UTF-8 or JSON is an InputError.

    Pass ``raw`` when the caller already holds the bytes (e.g. to hash exactly what it parsed).
    """
    if raw is None:
        raw = read_bytes_or_input_error(path)
    text = decode_utf8_or_input_error(path, raw)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(" \t\r\n\v\f"):  # the bytes.strip() set: a line of NBSP is not blank
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"bad JSON: {exc.msg} (column {exc.colno})", line=number,
                             hint="each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", line=number)
        yield number, obj


def validation_to_input_error(
    path: Path, line: int | None, exc: ValidationError, *, fields: Collection[str] | None = None
) -> InputError:
    """Turn pydantic's first error into a file:line:field message a user can act on.

    ``fields`` (the model's field names) lets an unknown field suggest the closest known one;
    a value outside a fixed set lists the allowed values and suggests the closest.
    """
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        name = str(first["loc"][-1]) if first["loc"] else ""
        message = "unknown field (typo?)" + (did_you_mean(name, fields) if fields else "")
    elif first["type"] == "missing":
        message = "required field is missing"
    elif first["type"] == "literal_error":
        allowed = re.findall(r"'([^']*)'", str(first.get("ctx", {}).get("expected", "")))
        given = first.get("input")
        if allowed:
            message = f"{given!r} is not one of {', '.join(allowed)}" + did_you_mean(str(given), allowed)
    elif message.startswith("Value error, "):
        message = message.removeprefix("Value error, ")
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


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


_FILE_MODE = 0o666 & ~_umask()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write bytes so a crash leaves either the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; a report is for sharing
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON so a crash leaves either the old file or the new one, never half of one."""
    text = json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))
