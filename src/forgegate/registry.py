"""Name -> implementation registries, filled by decorators, one per kind.

The CLI's choices, the plan schema's allowed values and the docs all read
``Registry.names()``, so there is never a second list to keep in step.

An entry may be *declared* before its module is imported (``declare(name, module)``): its name is
listed at once and its module imported on first ``get``, so that listing the choices (``--help``)
does not import an HTTP client or a model runtime.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Generic, TypeVar

from forgegate.errors import ForgegateError, did_you_mean

T = TypeVar("T")


class UnknownNameError(ForgegateError, KeyError):
    """Raised for a name no implementation registered; the message suggests the closest one."""

    def __init__(self, kind: str, name: str, known: tuple[str, ...]) -> None:
        self.message = f"unknown {kind} '{name}': choose one of {', '.join(known)}{did_you_mean(name, known)}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Registry(Generic[T]):
    """A registry of one kind of thing (backends, checks, judges...) keyed by name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._declared: dict[str, str] = {}

    def declare(self, name: str, module: str) -> None:
        """``module`` registers ``name`` when imported; list the name now, import the module on first use."""
        self._declared[name] = module

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name`` (names are unique)."""

        def decorate(obj: T) -> T:
            if name in self._entries:
                raise ValueError(f"{self.kind} '{name}' registered twice")
            self._entries[name] = obj
            return obj

        return decorate

    def get(self, name: str) -> T:
        if name not in self._entries and name in self._declared:
            importlib.import_module(self._declared[name])
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self.names()) from None

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._entries.keys() | self._declared.keys()))

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._declared
