"""Model backends, registered by name in ``BACKENDS``.

Each backend's module is declared here and imported the first time the backend is asked for, and
the protocol's records (``forgegate.backends.base``) when first named, so that listing the names
(``forgegate --help``) imports neither an HTTP client, a model runtime nor pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forgegate.backends.names import _BUILT_IN, BACKENDS

if TYPE_CHECKING:
    from forgegate.backends.base import Backend, BackendConfig, BackendError
    from forgegate.backends.embedded import EmbeddedBackend
    from forgegate.backends.llamacpp import LlamaCppBackend
    from forgegate.backends.ollama import OllamaBackend
    from forgegate.backends.openai import OpenAIBackend
    from forgegate.backends.transformers_backend import TransformersBackend
    from forgegate.backends.vllm import VllmBackend

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendConfig",
    "BackendError",
    "EmbeddedBackend",
    "LlamaCppBackend",
    "OllamaBackend",
    "OpenAIBackend",
    "TransformersBackend",
    "VllmBackend",
    "make_backend",
]


def make_backend(name: str, config: BackendConfig) -> Backend:
    """Build the backend registered under ``name`` (importing its module on first use)."""
    return BACKENDS.get(name)(config)


_BASE = frozenset({"Backend", "BackendConfig", "BackendError", "BackendFactory"})


def __getattr__(attr: str) -> Any:
    """The protocol's records and the backend classes, imported when first named."""
    if attr in _BASE:
        return getattr(importlib.import_module("forgegate.backends.base"), attr)
    for module, cls in _BUILT_IN.values():
        if cls == attr:
            return getattr(importlib.import_module(module), cls)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
