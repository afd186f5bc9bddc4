"""Which run stores this process is writing, for whoever has to report an interruption.

The runner notes each store it writes (``note_store``); the CLI's top-level handler opens an
``Activity`` around the command (``watching``) and, on Ctrl-C, counts the answers already stored
there. The record is a mutable object held in a context variable: a note made inside
``asyncio.run`` (which runs in a copy of the caller's context) still reaches the handler, and two
commands run in one process (tests) never see each other's stores. Nothing here imports more
than the standard library: the CLI opens the record before it parses a single option.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StoreNote:
    """One store being written, and how many requests the command planned for it."""

    path: Path
    planned: int


@dataclass
class Activity:
    """The stores one command has written to, in the order it opened them."""

    stores: list[StoreNote] = field(default_factory=list)


_CURRENT: ContextVar[Activity | None] = ContextVar("forgegate_activity", default=None)


@contextmanager
def watching() -> Iterator[Activity]:
    """Record, for the duration of one command, which stores it writes."""
    activity = Activity()
    token = _CURRENT.set(activity)
    try:
        yield activity
    finally:
        _CURRENT.reset(token)


def note_store(path: Path, planned: int) -> None:
    """Say that this command is writing the run store at ``path`` (nothing happens outside ``watching``)."""
    activity = _CURRENT.get()
    if activity is not None:
        activity.stores = [s for s in activity.stores if s.path != path] + [StoreNote(path, planned)]
