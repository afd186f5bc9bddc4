"""``backend = "vllm"``: forgegate runs ``vllm serve`` for an arm's base model, with every adapter over it.

The command line is one pure function (:func:`vllm_argv`); the server is started, watched and
stopped by the managed lifecycle (``backends/managed.py``) and requests go through the
OpenAI-compatible backend. All arms over one base on vLLM get the same adapter list, hence the
same launch spec, hence one shared server: the base arm's requests name the base model and each
adapter arm's requests name its adapter (served under the arm's name). ``replicas = N`` starts N
servers, each on its own group of ``tensor_parallel_size x pipeline_parallel_size`` GPUs, and
spreads requests over them as a ``--base-url`` list does.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import ClassVar

from forgegate.backends.base import BACKENDS, BackendConfig
from forgegate.backends.managed import LaunchSpec, ManagedBackend
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, merged, scalar
from forgegate.backends.transformers_backend import weights_digest
from forgegate.errors import InputError, UsageError
from forgegate.jsonio import parse_json_strict, read_text_or_input_error

LORA_RANKS = (8, 16, 32, 64, 128, 256, 320, 512)
"""The LoRA ranks vLLM can be told to reserve (``--max-lora-rank``)."""
STOP_GRACE_S = 60.0
"""vLLM stops its engine workers on SIGTERM; that takes longer than a single-process server."""


def vllm_executable() -> str | None:
    """The ``vllm`` command: on PATH, else beside this Python (a venv that is not activated)."""
    found = shutil.which("vllm")
    if found:
        return found
    sibling = Path(sys.executable).parent / "vllm"
    return str(sibling) if sibling.is_file() else None


def lora_modules(config: BackendConfig) -> tuple[tuple[str, str], ...]:
    """Every adapter the server loads: the plan's list over this base, or this arm's own adapter."""
    if config.lora_modules:
        return config.lora_modules
    if config.adapter:
        return ((config.adapter_name or "adapter", config.adapter),)
    return ()


def adapter_rank(folder: str | Path) -> int:
    """The LoRA rank ``r`` an adapter folder declares (8, PEFT's default, when it does not say)."""
    try:
        config = parse_json_strict(read_text_or_input_error(Path(folder) / "adapter_config.json"))
    except (InputError, ValueError):
        return 8
    rank = config.get("r") if isinstance(config, dict) else None
    return int(rank) if isinstance(rank, int) else 8


def rank_to_reserve(ranks: list[int]) -> int:
    """The smallest rank vLLM accepts for ``--max-lora-rank`` that fits every adapter."""
    wanted = max(ranks, default=8)
    for rank in LORA_RANKS:
        if rank >= wanted:
            return rank
    raise UsageError(f"an adapter has LoRA rank {wanted}; vLLM serves ranks up to {LORA_RANKS[-1]}")


def vllm_argv(config: BackendConfig, *, executable: str = "vllm", max_lora_rank: int = 16) -> tuple[str, ...]:
    """``vllm serve MODEL ...`` for ``config`` (``{port}`` is filled in at start).

    ``--generation-config vllm``: the server adds no sampling defaults of its own from the model's
    generation_config.json, so what the plan sends with each request is what runs.
    """
    if not config.model:
        raise UsageError("the vllm backend needs 'model': a Hugging Face model folder or a model id")
    argv = [executable, "serve", config.model, "--host", "127.0.0.1", "--port", "{port}",
            "--seed", str(config.server_seed), "--generation-config", "vllm"]
    if config.max_model_len is not None:
        argv += ["--max-model-len", str(config.max_model_len)]
    modules = lora_modules(config)
    if modules:
        argv += ["--enable-lora", "--lora-modules", *(f"{name}={path}" for name, path in modules),
                 "--max-loras", str(len(modules)), "--max-lora-rank", str(max_lora_rank)]
    if config.tensor_parallel_size > 1:
        argv += ["--tensor-parallel-size", str(config.tensor_parallel_size)]
    if config.pipeline_parallel_size > 1:
        argv += ["--pipeline-parallel-size", str(config.pipeline_parallel_size)]
    if config.distributed_executor_backend is not None:
        argv += ["--distributed-executor-backend", config.distributed_executor_backend]
    return tuple(argv)


def replica_envs(config: BackendConfig, visible: str | None) -> list[dict[str, str]]:
    """Each replica's environment: its own group of GPUs in ``CUDA_VISIBLE_DEVICES``.

    One replica, or Ray placing the workers (multi-node), keeps the environment as it is.
    ``visible`` is the caller's ``CUDA_VISIBLE_DEVICES``: the groups are cut from it when set.
    """
    if config.replicas == 1 or config.distributed_executor_backend == "ray":
        return [{} for _ in range(config.replicas)]
    per_replica = config.tensor_parallel_size * config.pipeline_parallel_size
    needed = per_replica * config.replicas
    gpus = [g.strip() for g in visible.split(",") if g.strip()] if visible else [str(i) for i in range(needed)]
    if len(gpus) < needed:
        raise UsageError(f"replicas = {config.replicas} of {per_replica} GPU(s) each need {needed} GPUs, but "
                         f"CUDA_VISIBLE_DEVICES lists {len(gpus)} ({visible}): lower replicas or the parallel sizes")
    return [{"CUDA_VISIBLE_DEVICES": ",".join(gpus[i * per_replica:(i + 1) * per_replica])}
            for i in range(config.replicas)]


@BACKENDS.register("vllm")
class VllmBackend(ManagedBackend):
    """vLLM servers forgegate starts for a base model and every adapter over it (shared by those arms)."""

    name = "vllm"
    remote: ClassVar[bool] = False
    """Capability (``backends.names.is_remote``): forgegate runs or starts the model itself."""
    adapter: ClassVar[AdapterKind | None] = "peft"
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    a PEFT LoRA folder on top of ``model``."""
    options: ClassVar[tuple[str, ...]] = ("replicas", "tensor_parallel_size", "pipeline_parallel_size",
                                          "distributed_executor_backend", "max_model_len", "port",
                                          "startup_timeout_s")
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def launch_specs(self, config: BackendConfig) -> list[LaunchSpec]:
        executable = vllm_executable()
        if executable is None:
            raise UsageError("vLLM is not installed here (no `vllm` command on PATH or beside this Python): "
                             "install it on a machine with a GPU (pip install vllm), or use backend = "
                             "\"transformers\" or \"llamacpp\"")
        rank = rank_to_reserve([adapter_rank(path) for _, path in lora_modules(config)])
        argv = vllm_argv(config, executable=executable, max_lora_rank=rank)
        envs = replica_envs(config, os.environ.get("CUDA_VISIBLE_DEVICES"))
        return [LaunchSpec(label="vLLM server", argv=argv, health_path="/health", env=env,
                           death_signal=signal.SIGTERM, stop_grace_s=STOP_GRACE_S) for env in envs]

    def request_model(self, config: BackendConfig) -> str:
        """The adapter's served name for an adapter arm, the base model otherwise."""
        if config.adapter:
            return config.adapter_name or "adapter"
        assert config.model is not None  # vllm_argv refused a missing model
        return config.model

    async def served_sampling(self) -> dict[str, ServedValue]:
        """vLLM's defaults, which take the model's ``generation_config.json`` (vLLM's ``--generation-config auto``):
        its values where the model is a local folder that has one."""
        config = Path(self.config.model or "").expanduser() / "generation_config.json"
        values: dict[str, ServedValue] = {}
        if config.is_file():
            raw = parse_json_strict(read_text_or_input_error(config, what="the model's generation_config.json"))
            values = {k: scalar(v) for k, v in raw.items()
                      if k in ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "do_sample")}
        return merged("vLLM defaults (the model's generation_config.json)", values,
                      "settings not listed are vLLM's own defaults")

    async def model_digest(self) -> str | None:
        """sha256 over the local model folder's weights (and the adapter's); None for a hub id."""
        folder = Path(self.config.model or "").expanduser()
        if not folder.is_dir():
            return None
        folders = [folder] + ([Path(self.config.adapter)] if self.config.adapter else [])
        return await asyncio.to_thread(weights_digest, folders)


__all__ = ["VllmBackend", "adapter_rank", "rank_to_reserve", "replica_envs", "vllm_argv", "vllm_executable"]

