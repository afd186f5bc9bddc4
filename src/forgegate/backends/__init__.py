"""Model backends, registered by name in ``BACKENDS``.

Importing this package registers every built-in backend.
"""

from forgegate.backends.base import BACKENDS, Backend, BackendConfig, BackendError
from forgegate.backends.embedded import EmbeddedBackend
from forgegate.backends.ollama import OllamaBackend
from forgegate.backends.openai import OpenAIBackend
from forgegate.backends.transformers_backend import TransformersBackend as TransformersBackend

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendConfig",
    "BackendError",
    "EmbeddedBackend",
    "OllamaBackend",
    "OpenAIBackend",
    "make_backend",
]


def make_backend(name: str, config: BackendConfig) -> Backend:
    """Build the backend registered under ``name``."""
    return BACKENDS.get(name)(config)
