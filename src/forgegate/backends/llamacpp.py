"""``backend = "llamacpp"``: forgegate runs llama-cpp-python's OpenAI-compatible server on a GGUF model.

The server is started, watched and stopped by the managed lifecycle (``backends/managed.py``);
requests go through the OpenAI-compatible backend. ``model`` is a GGUF file (none: the packaged
SmolLM2); ``adapter`` a GGUF LoRA file, which this server applies to the whole model, so each
adapter gets its own server. ``replicas = N`` starts N servers and spreads requests over them.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from typing import ClassVar

from forgegate.backends.base import BACKENDS, BackendConfig
from forgegate.backends.embedded import file_sha256, gguf_problem, resolve_model_path
from forgegate.backends.managed import LaunchSpec, ManagedBackend
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, merged, model_defaults, prefixed
from forgegate.errors import UsageError

SERVER_MODULE = "llama_cpp.server"
INSTALL_HINT = "pip install 'llama-cpp-python[server]'"
def server_missing() -> str | None:
    """Why the llama.cpp server cannot run here (its optional dependencies), or None."""
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return f"the llama.cpp server needs the Python package '{module}': {INSTALL_HINT}"
    return None


def llamacpp_argv(config: BackendConfig, model: Path) -> tuple[str, ...]:
    """``python -m llama_cpp.server`` for ``model`` on 127.0.0.1 (``{port}`` filled in at start), with
    ``interrupt_requests`` off: the server then queues concurrent requests instead of ending the running
    stream early with ``[DONE]`` and no finish reason (issue 33)."""
    argv = [sys.executable, "-m", SERVER_MODULE, "--model", str(model), "--host", "127.0.0.1", "--port", "{port}",
            "--n_ctx", str(config.max_model_len or config.n_ctx), "--seed", str(config.server_seed),
            "--interrupt_requests", "False"]  # on (its default), a new request cuts the running stream short
    if config.n_threads:
        argv += ["--n_threads", str(config.n_threads)]
    if config.adapter:
        argv += ["--lora_path", str(Path(config.adapter).expanduser())]
    return tuple(argv)


@BACKENDS.register("llamacpp")
class LlamaCppBackend(ManagedBackend):
    """A llama.cpp server forgegate starts for this arm (shared with arms that need the same one)."""

    name = "llamacpp"
    remote: ClassVar[bool] = False
    """Capability (``backends.names.is_remote``): forgegate runs or starts the model itself."""
    adapter: ClassVar[AdapterKind | None] = "gguf"
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    a GGUF LoRA file on top of ``model``."""
    options: ClassVar[tuple[str, ...]] = ("n_threads", "replicas", "max_model_len", "port", "startup_timeout_s")
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def __init__(self, config: BackendConfig) -> None:
        self.model_path = resolve_model_path(config.model, backend=self.name)
        super().__init__(config)

    def launch_specs(self, config: BackendConfig) -> list[LaunchSpec]:
        if (missing := server_missing()) is not None:
            raise UsageError(missing)
        if (problem := gguf_problem(self.model_path, "llamacpp model")) is not None:
            raise UsageError(problem)
        if config.adapter and (problem := gguf_problem(Path(config.adapter).expanduser(), "llamacpp adapter")):
            raise UsageError(problem + " (the llama.cpp server loads GGUF LoRA adapters only; "
                             "convert a PEFT folder with llama.cpp's convert_lora_to_gguf.py)")
        spec = LaunchSpec(label="llama.cpp server", argv=llamacpp_argv(config, self.model_path),
                          health_path="/v1/models")
        return [spec] * config.replicas

    def request_model(self, config: BackendConfig) -> str:
        return str(self.model_path)

    async def served_sampling(self) -> dict[str, ServedValue]:
        """llama-cpp-python's server's request defaults, the values it uses when a request sends none."""
        from llama_cpp.server.types import CreateChatCompletionRequest, CreateCompletionRequest

        return merged("llama-cpp-python server request defaults",
                      {**prefixed("chat", model_defaults(CreateChatCompletionRequest)),
                       **prefixed("completion", model_defaults(CreateCompletionRequest))})

    async def model_digest(self) -> str | None:
        """sha256 of the GGUF (as the embedded backend reports it), joined with the adapter's when there is one."""
        digests = [await asyncio.to_thread(file_sha256, self.model_path)]
        if self.config.adapter:
            digests.append(await asyncio.to_thread(file_sha256, Path(self.config.adapter).expanduser()))
        return "+".join(digests)
