"""Model backends, registered by name in ``BACKENDS``.

Importing this package registers every built-in backend.
"""

from forgegate.backends.base import (
    BACKENDS,
    Backend,
    BackendConfig,
    BackendError,
    Completion,
    FinishReason,
    GenerationRequest,
    TokenSource,
)

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendConfig",
    "BackendError",
    "Completion",
    "FinishReason",
    "GenerationRequest",
    "TokenSource",
    "make_backend",
]


def make_backend(name: str, config: BackendConfig) -> Backend:
    """Build the backend registered under ``name``."""
    return BACKENDS.get(name)(config)
