"""Reading user text and JSONL files with file:line:field errors, and writing JSON atomically."""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from forgegate.errors import InputError, closest, did_you_mean, not_one_of

M = TypeVar("M", bound=BaseModel)


MAX_USER_FILE_BYTES = 64 * 1024 * 1024
"""The largest file a user gives forgegate that it reads whole (64 MiB): a battery, plan, gate config, lineage,
sheet or JSONL of samples. A T_GPT sheet of 10,000 answers of 2,000 characters is about 20 MiB, so a larger
file is a wrong path (``/dev/zero``, a model's weights), refused before it is read into memory."""
MAX_CORPUS_FILE_BYTES = 1024 * 1024 * 1024
"""The largest text corpus file (a memorization or contamination corpus, a voice reference) read whole: 1 GiB,
a training set's text; a larger one is refused with the bound, never read until memory runs out."""


def file_kind_problem(mode: int) -> str | None:
    """What a file of ``stat`` mode ``mode`` is when it is not a regular file ("a pipe (FIFO)", ...), else None."""
    if stat.S_ISREG(mode):
        return None
    return ("a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file")


def read_bytes_or_input_error(path: Path, *, what: str = "file", hint: str = "check the path",
                              limit: int = MAX_USER_FILE_BYTES) -> bytes:
    """The one reader of a file a user gives forgegate: the bytes of a regular file of at most ``limit`` bytes.

    Anything else is an InputError (exit 2) that names the file, says what it is and what to pass: a missing
    file, a folder, a device (``/dev/zero``, ``/dev/null``), a pipe (a FIFO would block forever, deaf to
    SIGTERM), a socket, a file over ``limit``. The file is opened once without blocking and checked by its
    descriptor, then read up to ``limit + 1`` bytes, so a file that grows while it is read can never make the
    reader hold more than the limit. ``what`` names the file in the message; ``hint`` says what to pass.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(path, f"{what} not found", hint=hint) from None
    except IsADirectoryError:
        raise InputError(path, f"is a directory, not a {what}", hint=f"pass a {what}, not a folder") from None
    except OSError as exc:
        try:
            kind: str | None = file_kind_problem(os.stat(path).st_mode)
        except OSError:
            kind = None
        if kind is not None:  # a socket cannot be opened at all
            raise InputError(path, f"is {kind}, not a {what} file", hint=f"pass the {what} file itself") from None
        raise InputError(path, f"cannot open the {what}: {exc.strerror}", hint=hint) from None
    kind = file_kind_problem(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        if kind == "a folder":
            raise InputError(path, f"is a directory, not a {what}", hint=f"pass a {what}, not a folder")
        raise InputError(path, f"is {kind}, not a {what} file", hint=f"pass the {what} file itself (a regular "
                         "file: forgegate reads it whole, so a device or a pipe would never end)")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(path, f"cannot read the {what}: {exc.strerror}", hint=hint) from None
    if len(raw) > limit:
        raise InputError(path, f"the {what} is larger than {limit // (1024 * 1024)} MiB, the most forgegate reads",
                         hint=f"pass the {what} file itself (at most {limit} bytes); a larger file is a wrong path")
    return raw


def decode_utf8_or_input_error(path: Path | str, raw: bytes, *, bom: bool = True) -> str:
    """``raw`` decoded as UTF-8, a leading byte-order mark dropped (editors on Windows write one; ``bom=False``
    keeps it, for a caller that refuses it itself); bad bytes are an InputError naming the line and the byte
    offset (in the file) of the first invalid byte."""
    try:
        return raw.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, f"invalid UTF-8 at byte {exc.start}", line=line,
                         hint="save the file as UTF-8") from None


def read_text_or_input_error(path: Path, *, what: str = "file", hint: str = "check the path",
                             bom: bool = True, limit: int = MAX_USER_FILE_BYTES) -> str:
    """The file's text (the one reader, :func:`read_bytes_or_input_error`, then UTF-8 with a leading BOM dropped);
    a missing file, a device, a pipe, a file over ``limit`` or invalid UTF-8 is an InputError."""
    return decode_utf8_or_input_error(path, read_bytes_or_input_error(path, what=what, hint=hint, limit=limit),
                                      bom=bom)


MAX_JSON_DEPTH = 64
"""How deeply a JSON line may nest arrays and objects: every forgegate file nests a few levels, and a
deeper line (100,000 ``[``) would exhaust the parser's recursion instead of being refused."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonProblem(ValueError):
    """A JSON text that parses but is not acceptable: a repeated key, too deep, a lone surrogate."""

    def __init__(self, message: str, *, field: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.field, self.hint = message, field, hint


def _depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` outside strings (only computed when it could be too deep)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise JsonProblem(f"key '{key}' appears twice in one object", field=key,
                              hint="JSON would silently keep the last value; delete one of them")
        obj[key] = value
    return obj


def _lone_surrogate(value: Any, where: str = "") -> JsonProblem | None:
    """The first string (or key) holding a lone surrogate, which no UTF-8 file or request can carry."""
    if isinstance(value, str):
        for char in value:
            if 0xD800 <= ord(char) <= 0xDFFF:
                return JsonProblem(f"lone surrogate \\u{ord(char):04x}: not valid Unicode",
                                   field=where or None,
                                   hint="write the character itself, or a complete surrogate pair")
        return None
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        name = f"{where}.{key}" if where else str(key)
        found = _lone_surrogate(key, name) if isinstance(key, str) else None
        found = found or _lone_surrogate(child, name)
        if found is not None:
            return found
    return None


def _no_constant(name: str) -> Any:
    raise JsonProblem(f"{name} is not a number (JSON has no NaN or Infinity)",
                      hint="write a finite number, or regenerate the file with forgegate")


def parse_json_strict(text: str, *, finite: bool = False) -> Any:
    """``json.loads`` that refuses what it would otherwise accept silently: a key repeated inside one object
    (JSON keeps the last), nesting deeper than ``MAX_JSON_DEPTH`` (which would end in a RecursionError) and
    lone surrogates from ``\\ud800``-style escapes (which crash later, when the text is encoded).

    Raises ``json.JSONDecodeError`` for bad JSON and ``JsonProblem`` for the rest (a number of more digits
    than Python converts included). ``finite``: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's
    reader accepts though JSON has none) are refused too, for files whose numbers decide a verdict.
    """
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise JsonProblem(f"nested {depth} levels deep (at most {MAX_JSON_DEPTH})",
                          hint="every forgegate JSONL line is a shallow object")
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant if finite else None)
    except RecursionError:  # a depth the scan above did not see; never a traceback
        raise JsonProblem(f"nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    except (json.JSONDecodeError, JsonProblem):
        raise
    except ValueError as exc:  # Python's own limit on the digits of an integer
        raise JsonProblem(f"number too long: {str(exc).split(':')[0].lower()}") from None
    if _SURROGATE_ESCAPE.search(text):
        problem = _lone_surrogate(value)
        if problem is not None:
            raise problem
    return value


def iter_jsonl_lines(path: Path, raw: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; bad UTF-8 or JSON is an InputError.

    Pass ``raw`` when the caller already holds the bytes (e.g. to hash exactly what it parsed). A leading
    byte-order mark is accepted (editors write one); the JSON rules are ``parse_json_strict``'s.
    """
    if raw is None:
        raw = read_bytes_or_input_error(path)
    text = decode_utf8_or_input_error(path, raw, bom=True)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(" \t\r\n\v\f"):  # the bytes.strip() set: a line of NBSP is not blank
            continue
        try:
            obj = parse_json_strict(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"bad JSON: {exc.msg} (column {exc.colno})", line=number,
                             hint="each line must be one JSON object") from None
        except JsonProblem as exc:
            raise InputError(path, exc.message, line=number, field=exc.field, hint=exc.hint) from None
        if not isinstance(obj, dict):
            raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", line=number)
        yield number, obj


_WANTED = {"int_type": "a whole number", "float_type": "a number", "bool_type": "true or false",
           "string_type": "a string", "list_type": "a list", "tuple_type": "a list", "dict_type": "a table",
           "model_type": "a table", "model_attributes_type": "a table"}
"""What a strict type error asked for, in the words a JSON or TOML file uses (an object is a table)."""
_BOUNDS = {"greater_than": ("gt", "greater than"), "greater_than_equal": ("ge", "at least"),
           "less_than": ("lt", "less than"), "less_than_equal": ("le", "at most")}


def _given(value: Any) -> str:
    """How a value the user wrote is named in a message: ``the string '32'``, ``true``, ``a list``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "nothing (null)" if value is None else f"a {type(value).__name__}"


def pydantic_message(error: ErrorDetails) -> str:
    """One pydantic error (``exc.errors()[0]``) as a sentence a user can act on.

    Strict mode refuses ``"32"`` for a number and ``"yes"`` for a boolean; the message says what was
    expected, what was written and, for a quoted number or boolean, to drop the quotes. NaN and infinity
    are "not a number", not a bound they happen to miss; pydantic's "Value error, " prefix is dropped.
    """
    kind, given, ctx = str(error["type"]), error.get("input"), error.get("ctx") or {}
    message = str(error["msg"])
    if kind in _WANTED:
        message = f"must be {_WANTED[kind]}, not {_given(given)}"
        if isinstance(given, str) and kind in ("int_type", "float_type", "bool_type"):
            message += " (write it without quotes)"
    elif kind == "finite_number":
        message = f"not a number ({given}): write a finite value"
    elif kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        message = f"must be {words} {ctx.get(key)}, not {given}"
    elif kind == "missing":
        message = "required field is missing"
    elif kind == "literal_error":
        allowed = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        if allowed:
            message = not_one_of(str(given), allowed)
    return message.removeprefix("Value error, ")


def first_error(exc: ValidationError) -> ErrorDetails:
    """The error to report. A typo shows twice, as an unknown key and as a missing field; the unknown key
    close to a missing name goes first (only it can say "did you mean"). Otherwise pydantic's first."""
    errors = exc.errors()
    missing = [str(e["loc"][-1]) for e in errors if e["type"] == "missing" and e["loc"]]
    for error in errors:
        if error["type"] == "extra_forbidden" and error["loc"] and closest(str(error["loc"][-1]), missing):
            return error
    return errors[0]


def validation_to_input_error(
    path: Path, line: int | None, exc: ValidationError, *, fields: Collection[str] | None = None
) -> InputError:
    """Turn pydantic's first error into a file:line:field message a user can act on.

    ``fields`` (the model's field names) lets an unknown field suggest the closest known one;
    a value outside a fixed set lists the allowed values and suggests the closest.
    """
    first = first_error(exc)
    loc = ".".join(str(part) for part in first["loc"]) or None
    message = pydantic_message(first)
    if first["type"] == "extra_forbidden":
        name = str(first["loc"][-1]) if first["loc"] else ""
        message = "unknown field (typo?)" + (did_you_mean(name, fields) if fields else "")
    return InputError(path, message, line=line, field=loc)


def read_jsonl_models(path: Path, model: type[M], raw: bytes | None = None) -> list[tuple[int, M]]:
    """Every line of ``path`` validated as ``model``, with its line number (from ``raw``, the file's bytes,
    when the caller read them already)."""
    rows: list[tuple[int, M]] = []
    for number, obj in iter_jsonl_lines(path, raw):
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


_DESCRIPTOR_DIRS = ("/dev/", "/proc/")
"""A path that leads through these names a descriptor or device (``/dev/stdout``, ``/proc/self/fd/1``, a
link to either): written through, never renamed over, even when it ends at a regular file."""
_MAX_LINK_HOPS = 40


def _names_descriptor(path: Path) -> bool:
    """Whether ``path`` or any symbolic link it leads through names ``/dev/...`` or ``/proc/...``."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINK_HOPS):
        if current.startswith(_DESCRIPTOR_DIRS):
            return True
        try:
            target = os.readlink(current)
        except OSError:  # not a link (or not there): the chain ends here
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return False


def _write_through(path: Path, data: bytes) -> None:
    """Write ``data`` into what is already at ``path`` (a pipe, a terminal, a descriptor) without replacing it.

    Appending keeps what the command already printed when ``/dev/stdout`` is redirected to a file.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    except OSError as exc:  # /dev/full: ENOSPC; name the path so the message does
        raise OSError(exc.errno, exc.strerror, str(path)) from None


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write bytes so a crash leaves either the old file or the new one, never half of one.

    Only a regular file is replaced (a temporary file renamed over it; a symbolic link keeps pointing at
    it). A pipe, a terminal, ``/dev/stdout`` or a link to a descriptor is written through; a folder, a
    block device or a socket is refused (InputError, exit 2): renaming over them would destroy them.
    """
    path = Path(path)
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and (not stat.S_ISREG(mode) or _names_descriptor(path)):
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode):
            _write_through(path, data)
            return
        kind = "a folder" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode) else "not a regular file"
        raise InputError(path, f"is {kind}; forgegate will not replace it",
                         hint="give the path of a file (or a pipe, or /dev/stdout)")
    if path.is_symlink():  # replace the file the link names; the link stays a link
        path = Path(os.path.realpath(path))
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
