"""Model backends, registered by name in ``BACKENDS``.

Each backend's module is declared in ``forgegate.backends.names`` (the one list) and imported the first
time the backend is asked for, and the protocol's records (``forgegate.backends.base``) when first named,
so that listing the names (``forgegate --help``) imports neither an HTTP client, a model runtime nor pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forgegate.backends.names import BACKENDS

if TYPE_CHECKING:
    from forgegate.backends.base import Backend, BackendConfig, BackendError

__all__ = ["BACKENDS", "Backend", "BackendConfig", "BackendError", "make_backend"]


def make_backend(name: str, config: BackendConfig) -> Backend:
    """Build the backend registered under ``name`` (importing its module on first use)."""
    return BACKENDS.get(name)(config)


_BASE = frozenset({"Backend", "BackendConfig", "BackendError", "BackendFactory"})


def __getattr__(attr: str) -> Any:
    """The protocol's records, imported when first named (a backend class: from its own module)."""
    if attr in _BASE:
        return getattr(importlib.import_module("forgegate.backends.base"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
