"""Which backends load a PEFT adapter themselves, and what to do instead on the others.

An adapter a backend silently ignores would run the base model under a checkpoint's name,
so an adapter on any other backend is refused where it is written (plan line or CLI flag).
"""

from __future__ import annotations

from pathlib import Path

from forgegate.backends.names import BACKENDS, adapter_kind
from forgegate.errors import InputError
from forgegate.jsonio import parse_json_strict, read_text_or_input_error


def adapter_backends() -> tuple[str, ...]:
    """Backends that load ``adapter`` on top of ``model`` (a PEFT LoRA folder, or a GGUF LoRA file), as each
    registered class declares (``adapter``)."""
    return tuple(name for name in BACKENDS.names() if adapter_kind(name) is not None)

_INSTEAD: dict[str, str] = {
    "openai": "the server loads adapters, not forgegate: use backend = \"vllm\" (forgegate then starts "
              "vLLM with the adapter), or serve the LoRA by name yourself "
              "(vllm serve BASE --enable-lora --lora-modules NAME=PATH) and put that NAME in 'model'",
    "ollama": "build an Ollama model with the adapter (Modelfile: FROM base / ADAPTER path), "
              "then put that model's name in 'model'",
    "embedded": "the embedded backend runs the GGUF a package carries; merge the adapter into a model and use "
                "backend = \"transformers\" (or serve it and use openai / ollama)",
}


def adapter_refusal(backend: str) -> str | None:
    """Why ``backend`` cannot take an adapter (with what to do instead), or None when it loads one."""
    if backend in BACKENDS and adapter_kind(backend) is not None:
        return None
    instead = _INSTEAD.get(backend, f"use one of: {', '.join(adapter_backends())}")
    return (f"the {backend} backend cannot load an adapter and would run the base model under this name; "
            f"{instead}")


def adapter_problem(folder: Path, backend: str = "transformers") -> str | None:
    """Why ``folder`` is not an adapter ``backend`` loads (a PEFT folder; a GGUF file for llamacpp), or None."""
    if backend in BACKENDS and adapter_kind(backend) == "gguf":
        if not folder.is_file():
            return f"adapter file not found: {folder} (the {backend} backend takes a GGUF LoRA file)"
        return None
    if not folder.exists():
        return f"adapter folder not found: {folder}"
    if not folder.is_dir():
        return f"adapter is not a folder: {folder}"
    if not (folder / "adapter_config.json").is_file():
        return f"{folder} is not a PEFT adapter folder (no adapter_config.json)"
    return None


def adapter_base(folder: Path) -> str | None:
    """The base model a PEFT adapter was trained on (``base_model_name_or_path``), when it says."""
    try:
        config = parse_json_strict(read_text_or_input_error(folder / "adapter_config.json"))
    except (InputError, ValueError):
        return None
    base = config.get("base_model_name_or_path") if isinstance(config, dict) else None
    return str(base) if base else None


def _names_of(model: str) -> set[str]:
    """Every spelling that names ``model``: as written, resolved, its last name (a hub id's model name, a
    folder's name), a hub-cache snapshot's id, and for a GGUF file its folder too (transformers records
    the folder a GGUF was loaded from as the base). Case-insensitive."""
    names = {model.rstrip("/"), model.rstrip("/").rsplit("/", 1)[-1]}
    path = Path(model).expanduser()
    if path.exists():
        resolved = path.resolve()
        names.add(str(resolved))
        if path.is_file():
            names.update({str(resolved.parent), resolved.parent.name})
        for part in resolved.parts:
            if part.startswith("models--"):
                names.add(part.removeprefix("models--").replace("--", "/").rsplit("/", 1)[-1])
    return {name.lower() for name in names if name}


def _same_config(base: str, model: str) -> bool:
    """Two local folders holding the same config.json (the same model, copied elsewhere)."""
    try:
        return bool(parse_json_strict(read_text_or_input_error(Path(base) / "config.json")) == parse_json_strict(
            read_text_or_input_error(Path(model) / "config.json")))
    except (InputError, ValueError):
        return False


def adapter_base_problem(folder: Path, model: str | None) -> str | None:
    """Why the adapter in ``folder`` does not fit ``model`` (it names another base), or None.

    An adapter applied to the wrong base runs, and produces text, under the checkpoint's name; the
    shapes often match (an instruct adapter on the plain base), so loading would not catch it.
    A base the adapter does not name, or no model to compare with, is not refused.
    """
    base = adapter_base(folder)
    if base is None or model is None:
        return None
    if _names_of(base) & _names_of(model) or _same_config(base, model):
        return None
    return (f"adapter {folder} was trained on '{base}' (adapter_config.json: base_model_name_or_path) "
            f"but the arm's model is '{model}': point 'model' at that base, use the adapter trained on "
            "this model, or, if it is the same model under another name, write its path in "
            "base_model_name_or_path")
