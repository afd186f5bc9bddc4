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

# The one list of built-in backends: name -> (the module that registers it, whether it talks to a server
# forgegate does not start, which cannot vouch for the model's name: --model then labels every result).
_BUILT_IN: dict[str, tuple[str, bool]] = {
    "embedded": ("forgegate.backends.embedded", False),
    "llamacpp": ("forgegate.backends.llamacpp", False),
    "ollama": ("forgegate.backends.ollama", True),
    "openai": ("forgegate.backends.openai", True),
    "transformers": ("forgegate.backends.transformers_backend", False),
    "vllm": ("forgegate.backends.vllm", False),
}
for _name, (_module, _) in _BUILT_IN.items():
    BACKENDS.declare(_name, _module)

REMOTE_BACKENDS: frozenset[str] = frozenset(name for name, (_, remote) in _BUILT_IN.items() if remote)
"""Backends on a server forgegate does not start: ``--model`` is required (the label comes from it)."""
