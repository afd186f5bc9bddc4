"""Which backends load a PEFT adapter themselves, and what to do instead on the others.

An adapter a backend silently ignores would run the base model under a checkpoint's name,
so an adapter on any other backend is refused where it is written (plan line or CLI flag).
"""

from __future__ import annotations

from pathlib import Path

ADAPTER_BACKENDS: tuple[str, ...] = ("transformers",)
"""Backends that load ``adapter`` (a local PEFT LoRA folder) on top of ``model``."""

_INSTEAD: dict[str, str] = {
    "openai": "the server loads adapters, not forgegate: for vLLM, serve the LoRA by name "
              "(vllm serve BASE --enable-lora --lora-modules NAME=PATH) and put that NAME in 'model'",
    "ollama": "build an Ollama model with the adapter (Modelfile: FROM base / ADAPTER path), "
              "then put that model's name in 'model'",
    "embedded": "the embedded backend runs the GGUF a package carries; merge the adapter into a model and use "
                "backend = \"transformers\" (or serve it and use openai / ollama)",
}


def adapter_refusal(backend: str) -> str | None:
    """Why ``backend`` cannot take an adapter (with what to do instead), or None when it loads one."""
    if backend in ADAPTER_BACKENDS:
        return None
    instead = _INSTEAD.get(backend, f"use one of: {', '.join(ADAPTER_BACKENDS)}")
    return (f"the {backend} backend cannot load an adapter and would run the base model under this name; "
            f"{instead}")


def adapter_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a PEFT adapter folder, or None when it is one."""
    if not folder.exists():
        return f"adapter folder not found: {folder}"
    if not folder.is_dir():
        return f"adapter is not a folder: {folder}"
    if not (folder / "adapter_config.json").is_file():
        return f"{folder} is not a PEFT adapter folder (no adapter_config.json)"
    return None
