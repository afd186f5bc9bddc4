"""The backend registry and the built-in backends' names, declared with the module that registers each.

Kept apart from the package's ``__init__`` so that a backend module registering itself imports this small
module, not the package that (for type checking) names every backend: no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgegate.registry import Registry

if TYPE_CHECKING:
    from forgegate.backends.base import BackendFactory

BACKENDS: Registry[BackendFactory] = Registry("backend")

# name -> (module that registers it, the class it exports)
_BUILT_IN: dict[str, tuple[str, str]] = {
    "embedded": ("forgegate.backends.embedded", "EmbeddedBackend"),
    "llamacpp": ("forgegate.backends.llamacpp", "LlamaCppBackend"),
    "ollama": ("forgegate.backends.ollama", "OllamaBackend"),
    "openai": ("forgegate.backends.openai", "OpenAIBackend"),
    "transformers": ("forgegate.backends.transformers_backend", "TransformersBackend"),
    "vllm": ("forgegate.backends.vllm", "VllmBackend"),
}
for _name, (_module, _) in _BUILT_IN.items():
    BACKENDS.declare(_name, _module)
