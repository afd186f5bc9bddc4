"""The backend registry and the built-in backends' names, declared with the module that registers each.

Kept apart from the package's ``__init__`` so that a backend module registering itself imports this small
module, not the package that (for type checking) names every backend: no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from forgegate.registry import Registry

if TYPE_CHECKING:
    from forgegate.backends.base import BackendFactory

BACKENDS: Registry[BackendFactory] = Registry("backend")

AdapterKind = Literal["peft", "gguf"]
"""What adapter a backend loads on top of its model: a PEFT LoRA folder, or a GGUF LoRA file."""

# The one list of built-in backends: name -> the module that registers it. What each can do (``remote``: it
# talks to a server forgegate does not start; ``adapter``: the adapter it loads; ``options``: the per-arm options
# it uses) is declared on the class that module registers, and read by :func:`capability`; there is no second
# list of it.
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


def capability(name: str, attribute: str, kinds: type | tuple[type, ...]) -> object:
    """What backend ``name``'s registered class declares as ``attribute``; a class that does not declare it is an
    error, never a guess (a wrong default would let an ignored option or a result with no label through)."""
    factory = BACKENDS.get(name)
    value = getattr(factory, attribute, TypeError)
    if not isinstance(value, kinds):
        raise TypeError(f"backend '{name}' declares no '{attribute}' capability: set {attribute} on "
                        f"{getattr(factory, '__qualname__', factory)!r}")
    return value


def is_remote(name: str) -> bool:
    """Whether backend ``name`` answers from a server forgegate does not start, which cannot vouch for the
    model's name (``--model`` then labels every result and is required). Read from the registered class's
    ``remote``."""
    return bool(capability(name, "remote", bool))


def adapter_kind(name: str) -> AdapterKind | None:
    """The adapter backend ``name`` loads itself (``peft`` folder, ``gguf`` file), or None: it cannot load one."""
    kind = capability(name, "adapter", (str, type(None)))
    if kind not in ("peft", "gguf", None):
        raise TypeError(f"backend '{name}' declares adapter = {kind!r}: it is 'peft', 'gguf' or None")
    return kind


def backend_options(name: str) -> tuple[str, ...]:
    """The per-arm options backend ``name`` uses (beyond model, adapter and base URLs), as its class declares."""
    options = capability(name, "options", tuple)
    assert isinstance(options, tuple)
    return tuple(str(option) for option in options)
