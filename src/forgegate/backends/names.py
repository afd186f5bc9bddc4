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

# The one list of built-in backends: name -> the module that registers it. What each can do (``remote``: it
# talks to a server forgegate does not start) is declared on the class that module registers, and read by
# :func:`is_remote`; there is no second list of it.
_BUILT_IN: dict[str, str] = {
    "embedded": "forgegate.backends.embedded",
    "llamacpp": "forgegate.backends.llamacpp",
    "ollama": "forgegate.backends.ollama",
    "openai": "forgegate.backends.openai",
    "transformers": "forgegate.backends.transformers_backend",
    "vllm": "forgegate.backends.vllm",
}
for _name, _module in _BUILT_IN.items():
    BACKENDS.declare(_name, _module)


def is_remote(name: str) -> bool:
    """Whether backend ``name`` answers from a server forgegate does not start, which cannot vouch for the
    model's name (``--model`` then labels every result and is required). Read from the registered class's
    ``remote``; a class that does not declare it is an error, never a guess (a wrong False would let a
    result go out with no label)."""
    factory = BACKENDS.get(name)
    remote = getattr(factory, "remote", None)
    if not isinstance(remote, bool):
        raise TypeError(f"backend '{name}' declares no 'remote' capability: set remote = True or False on "
                        f"{getattr(factory, '__qualname__', factory)!r}")
    return remote
