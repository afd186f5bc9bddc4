"""``forgegate watch --backend vllm|openai``: each new checkpoint probed through a server the team runs.

- ``vllm``: the server serves the base with runtime LoRA loading on; each adapter checkpoint is
  loaded by name (``/v1/load_lora_adapter``, the name from ``--model-template``), probed under that
  name, and unloaded after, so ``--max-loras`` slots do not run out over a long run. A full-model
  checkpoint cannot be loaded that way and is refused with what to do.
- ``openai``: any OpenAI-compatible server the user points at, which serves each checkpoint under the
  name ``--model-template`` gives it (``"my-run-{step}"``); a checkpoint whose name the server does
  not list yet is waited for (the team's deploy may lag the save), never probed under another name.

The probe itself is the one ``watch`` runs for every backend (``probe_async`` through the
OpenAI-compatible backend): same battery, same gate, same record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.backends import BackendConfig
from forgegate.backends.adapters import adapter_base_problem
from forgegate.backends.base import BackendError
from forgegate.backends.served import load_lora_adapter, served_models, unload_lora_adapter
from forgegate.errors import UsageError
from forgegate.training.checkpoint_files import Checkpoint, Ready

SERVING_BACKENDS: tuple[str, ...] = ("vllm", "openai")
"""Backends that probe through a running server (``--base-url``) rather than loading the checkpoint here."""
DEFAULT_MODEL_TEMPLATE = "{checkpoint}"
TEMPLATE_FIELDS = ("step", "checkpoint")
"""What ``--model-template`` may name: the global step and the folder's name (``checkpoint-20``)."""
PROBE_BACKEND = "openai"
"""The backend the probe's requests go through once the checkpoint is served."""


@dataclass(frozen=True)
class Served:
    """A checkpoint the server now serves: the config the probe asks it with, and the name it goes by."""

    config: BackendConfig
    name: str
    label: str
    loaded: bool  # loaded by this watch (vLLM): unload it after the probe


@dataclass(frozen=True)
class NotServed:
    reason: str
    refuse: bool  # True: it never will be (nothing recorded); False: wait and look again


def served_name(template: str, checkpoint: Checkpoint) -> str:
    """The name the server serves ``checkpoint`` under."""
    return template.format(step=checkpoint.step, checkpoint=checkpoint.name)


def check_serving(backend: str, base_urls: tuple[str, ...], template: str | None) -> None:
    """Usage errors of a serving watch, before anything is waited for."""
    if not base_urls:
        raise UsageError(f"--backend {backend} probes through a running server: give its --base-url "
                         "(e.g. http://127.0.0.1:8000/v1)")
    if len(base_urls) > 1 and backend == "vllm":
        raise UsageError("--backend vllm loads each adapter into one server: give one --base-url")
    try:
        served_name(template or DEFAULT_MODEL_TEMPLATE, Checkpoint("checkpoint-1", 1, Path(".")))
    except (KeyError, IndexError, ValueError) as exc:
        raise UsageError(f"--model-template {template!r}: {exc!s} is not a field it may name; use "
                         f"{', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)}") from None


async def serve(backend: str, base_urls: tuple[str, ...], template: str | None, api_key_env: str | None,
                base: str | None, checkpoint: Checkpoint, ready: Ready) -> Served | NotServed:
    """Make ``checkpoint`` servable by name (vLLM: load it), or say why it is not (yet)."""
    name = served_name(template or DEFAULT_MODEL_TEMPLATE, checkpoint)
    config = BackendConfig(model=name, base_urls=base_urls, api_key_env=api_key_env)
    if backend == "vllm":
        if ready.kind != "adapter":
            return NotServed("a full-model checkpoint cannot be loaded into a running vLLM server (it loads LoRA "
                             "adapters by name): serve the checkpoint yourself and watch with --backend openai "
                             "--model-template", refuse=True)
        if (problem := adapter_base_problem(checkpoint.path, base)) is not None:
            return NotServed(problem, refuse=True)
        await load_lora_adapter(base_urls[0], name, str(checkpoint.path.resolve()), api_key_env=api_key_env)
        return Served(config, name, f"{checkpoint.name} (adapter '{name}' on vLLM, step {checkpoint.step})", True)
    try:
        listed = await served_models(base_urls[0], api_key_env=api_key_env)
    except BackendError as exc:
        return NotServed(f"the server cannot be asked what it serves yet ({exc})", refuse=False)
    if name not in listed:
        shown = ", ".join(sorted(listed)[:5]) or "nothing"
        return NotServed(f"the server does not serve '{name}' yet (it lists {shown})", refuse=False)
    return Served(config, name, f"{checkpoint.name} (served as '{name}', step {checkpoint.step})", False)


async def release(backend: str, base_urls: tuple[str, ...], api_key_env: str | None, served: Served) -> None:
    """Unload an adapter this watch loaded; a server that refuses leaves it loaded (it still served the probe)."""
    if backend == "vllm" and served.loaded:
        try:
            await unload_lora_adapter(base_urls[0], served.name, api_key_env=api_key_env)
        except (BackendError, UsageError):
            return


__all__ = ["DEFAULT_MODEL_TEMPLATE", "PROBE_BACKEND", "SERVING_BACKENDS", "NotServed", "Served", "check_serving",
           "release", "serve", "served_name"]
