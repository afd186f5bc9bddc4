"""Errors a user can act on: each names the file, the line and what to do.

The CLI prints these without a traceback and exits 2 (bad input).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from forgegate.textsafe import visible


class ForgegateError(Exception):
    """Base class of every error forgegate expects and explains."""


@dataclass
class InputError(ForgegateError):
    """A file the user wrote is wrong: where, which field, what is wrong, what to do."""

    path: Path | str
    message: str
    line: int | None = None
    field: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else f"{self.path}"
        field = f" field '{self.field}':" if self.field else ""
        hint = f"\n       ({self.hint})" if self.hint else ""
        return visible(f"{where}:{field} {self.message}{hint}")  # a key or value quoted from the file may hold ESC


class UsageError(ForgegateError):
    """The command line asks for something that cannot be done (exit 2)."""


class StoreError(ForgegateError):
    """The run store or its folder cannot be used as it is (damaged, read-only, a file where a folder
    belongs, held by another process): the user must act, so it is bad input (exit 2), never a verdict."""

    def __init__(self, path: Path | str, problem: str, remedy: str) -> None:
        super().__init__(f"{path}: {problem}; {remedy}")
        self.path = Path(path)
        self.problem = problem
        self.remedy = remedy



class RequestsIncomplete(Exception):  # noqa: N818 - named for the gate word it ends in, INCOMPLETE
    """Requests an instrument needed failed for good (after the engine's retries): no measurement, so no verdict
    can stand. Not the user's to fix by editing a file, so not a :class:`ForgegateError`: the CLI ends the command
    INCOMPLETE (exit 3), never a pass and never bad input; the answers that did arrive are stored and the same
    command asks only for the rest."""


def closest(word: str, known: Collection[str]) -> str | None:
    """The known name nearest to a mistyped ``word``, if any is near enough."""
    close = difflib.get_close_matches(word, list(known), n=1)
    return close[0] if close else None


def did_you_mean(word: str, known: Collection[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest known name, or nothing."""
    near = closest(word, known)
    return f" (did you mean '{near}'?)" if near else ""


def not_one_of(value: str, known: Collection[str]) -> str:
    """The one wording of "not an allowed value": the choices, then the nearest."""
    return f"'{value}' is not one of {', '.join(known)}{did_you_mean(value, known)}"
