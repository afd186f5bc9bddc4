"""Hugging Face ``transformers`` models on any device, batched, with a PEFT LoRA adapter per arm.

``model`` is a model folder, a locally cached id (never downloaded: ``local_files_only=True``),
or a GGUF file (loaded through transformers' GGUF support, which needs the ``gguf`` package);
``adapter`` a PEFT adapter folder. Arms over the same base share one loaded base model and one
batch worker (``backends/_batching.py``): ``base-unadapted``, ``ckpt1750`` and ``ckpt850`` hold one
copy of the weights, each adapter loaded by name, and their requests share batches, each row through its own
adapter (``backends/_row_lora.py``). The worker's thread loads the base and the adapters too: one thread does
every torch operation on a base.

``device``: ``auto`` is cuda, then mps, then cpu; ``dtype``: ``auto`` is bfloat16 on a GPU that
supports it, float16 on other GPUs, float32 on CPU. The model loads when the backend is made, so a
bad model or device is a usage error (exit 2) before anything generates. torch is imported only
then.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from forgegate.backends._batching import Batcher, Job, Row
from forgegate.backends._decode import UNAPPLIED_KEYS, decode_batch, served_settings
from forgegate.backends._row_lora import RowLoRA
from forgegate.backends.adapters import adapter_base_problem, adapter_problem
from forgegate.backends.base import BACKENDS, BackendConfig, BackendError
from forgegate.backends.embedded import file_sha256
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, merged, scalar
from forgegate.core.records import Completion, GenerationRequest, StreamStop
from forgegate.errors import UsageError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
DIGEST_EXTRA_FILES = ("config.json", "adapter_config.json", "generation_config.json")
DEFAULT_BATCH = {"cpu": 8, "mps": 16, "cuda": 64}
"""Rows per batch when the arm does not say: a CPU gains little past 8, a GPU keeps gaining."""


def resolve_model(model: str) -> tuple[Path, str | None]:
    """(folder, GGUF file name or None): a folder, a GGUF file, or the local cache snapshot of a hub id."""
    path = Path(model).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return path.parent, path.name
    if path.is_dir():
        return path, None
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True)), None
    except Exception as exc:  # noqa: BLE001  (any failure means: not available locally)
        raise UsageError(f"transformers model '{model}' is neither a folder, a .gguf file, nor in the local "
                         f"Hugging Face cache (forgegate never downloads): {exc}") from None


def weights_digest(folders: list[Path]) -> str:
    """sha256 over the weight files (and configs) of each folder, by relative name then bytes."""
    digest = hashlib.sha256()
    for folder in folders:
        files = sorted(p for p in folder.rglob("*") if p.is_file()
                       and (p.suffix in WEIGHT_SUFFIXES or p.name in DIGEST_EXTRA_FILES))
        for path in files:
            digest.update(str(path.relative_to(folder)).encode("utf-8") + b"\0")
            with path.open("rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
    return "sha256:" + digest.hexdigest()


def resolve_device(requested: str) -> str:
    """The torch device for ``requested``: auto is cuda, then mps, then cpu; an absent GPU is a usage error."""
    import torch

    mps = getattr(torch.backends, "mps", None)
    has_mps = bool(mps is not None and mps.is_available())
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu"
    if requested.startswith("cuda"):
        if not torch.cuda.is_available():
            raise UsageError(f"device '{requested}': torch sees no CUDA GPU here (torch {torch.__version__}, "
                             f"CUDA build {torch.version.cuda or 'none'}): use device = \"auto\" or \"cpu\"")
        index = int(requested.split(":", 1)[1]) if ":" in requested else 0
        if index >= torch.cuda.device_count():
            raise UsageError(f"device '{requested}': there are {torch.cuda.device_count()} CUDA GPU(s) here")
    if requested == "mps" and not has_mps:
        raise UsageError("device 'mps': torch sees no Apple GPU here: use device = \"auto\" or \"cpu\"")
    return requested


def resolve_dtype(requested: str, device: str) -> Any:
    """The torch dtype: auto is bfloat16 on a GPU that supports it, float16 on other GPUs, float32 on CPU."""
    import torch

    if requested != "auto":
        return getattr(torch, requested)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float16 if device == "mps" else torch.float32


@dataclass
class _SharedBase:
    """One loaded base model and tokenizer, shared by every arm over it; adapters load by name."""

    model: Any
    tokenizer: Any
    device: str
    batcher: Batcher | None = None
    adapters: dict[str, str] = field(default_factory=dict)  # adapter folder -> adapter name
    adapter_users: dict[str, int] = field(default_factory=dict)  # adapter folder -> arms open over it
    loaded: int = 0  # adapters ever loaded: names are never reused, even after one is unloaded
    users: int = 0
    row_lora: RowLoRA | None = None
    """Applies each row's adapter in a mixed batch (None: no adapter loaded, or PEFT's own ``adapter_names``)."""


class _Pool:
    """Loaded bases keyed by model, device and dtype (a cache, released when its last arm closes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bases: dict[tuple[str, ...], _SharedBase] = {}

    def acquire(self, key: tuple[str, ...], load: Any) -> _SharedBase:
        with self._lock:
            base = self._bases.get(key)
            if base is None:
                base = self._bases[key] = load()
            base.users += 1
            return base

    def release(self, key: tuple[str, ...]) -> None:
        with self._lock:
            base = self._bases.get(key)
            if base is not None:
                base.users -= 1
                if base.users <= 0:
                    del self._bases[key]
                    if base.batcher is not None:
                        base.batcher.close()


_POOL = _Pool()


def load_base(folder: Path, gguf: str | None, device: str, dtype: Any) -> tuple[Any, Any]:
    """Model and tokenizer from a folder (or a GGUF in it), on ``device`` in ``dtype``, in eval mode."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    extra: dict[str, Any] = {"gguf_file": gguf} if gguf else {}
    if gguf:
        import importlib.util

        if importlib.util.find_spec("gguf") is None:
            raise UsageError("a .gguf model on the transformers backend needs the 'gguf' package: "
                             "pip install 'forgegate[hf]' (or pip install gguf)")
        _quiet_gguf_progress()
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, **extra)
        model: Any = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=dtype, **extra)
    except Exception as exc:  # noqa: BLE001  (whatever the reader raises, the file cannot be used)
        what = f"GGUF {folder / gguf}" if gguf else f"model folder {folder}"
        hint = (" (transformers reads GGUF files of the architectures it supports; backend = \"llamacpp\" "
                "runs any GGUF)") if gguf else ""
        raise UsageError(f"transformers cannot load the {what}: {exc}{hint}") from None
    model.to(device)
    model.eval()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    _first_forward(model, device)
    return model, tokenizer


def _first_forward(model: Any, device: str) -> None:
    """One token through the model as it loads, on the thread that loads it: the base's batch worker, which
    then runs every step (``Batcher``'s docstring).

    torch's CPU runtime sets itself up on the first forward, so a request's first step pays no setup. When the
    model loaded on one thread and first ran on another, every later step was several times slower (measured on
    SmolLM2, 2 cores: 16 requests x 64 tokens took 187 s instead of 10 s; not profiled then, likely the libgomp
    teams ``Batcher``'s docstring describes).
    """
    import torch

    token = torch.tensor([[0]], device=device)
    with torch.inference_mode():
        model(input_ids=token)


def _quiet_gguf_progress() -> None:
    """transformers' GGUF reader draws its own tqdm bar (it ignores disable_progress_bar); forgegate's
    stderr carries its own progress, so that bar is turned off."""
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    tqdm = getattr(gguf_utils, "tqdm", None)
    if tqdm is not None and not isinstance(tqdm, functools.partial):
        gguf_utils.tqdm = functools.partial(tqdm, disable=True)  # type: ignore[attr-defined]


async def submit(base: _SharedBase | None, adapter_name: str | None, request: GenerationRequest,
                 make_completion: Callable[[Row], Completion], stop: StreamStop | None = None) -> Completion:
    """Queue ``request`` on ``base``'s batch worker and wait for its answer (a closed base is a hard error);
    ``stop`` (the loop cut-off) ends this request's row alone."""
    if base is None or base.batcher is None:
        raise BackendError("the transformers backend was closed", transient=False)
    loop = asyncio.get_running_loop()
    job = Job(request, adapter_name, loop, loop.create_future(), make_completion, stop=stop)
    base.batcher.submit(job)
    try:
        return await job.future
    except BackendError:
        raise
    except (UsageError, OSError, ValueError, RuntimeError) as exc:
        raise BackendError(f"transformers generation failed: {exc}", transient=False) from exc


def generation_config_sampling(model: Any) -> dict[str, ServedValue]:
    """What forgegate's decoder serves ``model`` with (``_decode.served_settings``) and what of its
    ``generation_config`` it leaves unapplied."""
    temperature, top_p = served_settings(model)
    config = getattr(model, "generation_config", None)
    unapplied = {key: scalar(getattr(config, key)) for key in UNAPPLIED_KEYS
                 if config is not None and getattr(config, key, None) is not None}
    note = ("forgegate's decoder applies temperature and top_p only; not applied: "
            + ", ".join(f"{k} {v}" for k, v in unapplied.items())) if unapplied else None
    return merged("transformers generation_config (greedy unless do_sample)",
                  {"temperature": temperature, "top_p": top_p}, note)


def row_completion(row: Row, *, digest: str | None, endpoint: str, extra: dict[str, str]) -> Completion:
    """A decoded row as the run store keeps it: exact token count and per-token texts from the tokenizer."""
    return Completion(
        text=row.detok.text, tokens=row.tokens, token_source="tokenizer", finish=row.finish,
        latency_s=time.perf_counter() - row.job.queued, ttft_s=row.ttft_s, token_texts=tuple(row.pieces),
        model_digest=digest, endpoint=endpoint, extra={**extra, "prompt_tokens": str(len(row.prompt_ids))},
        prompt_tokens=len(row.prompt_ids))


@BACKENDS.register("transformers")
class TransformersBackend:
    """A local Hugging Face causal LM (+ optional PEFT LoRA adapter), batched on cpu, cuda or mps."""

    name = "transformers"
    remote: ClassVar[bool] = False
    """Capability (``backends.names.is_remote``): forgegate runs or starts the model itself."""
    adapter: ClassVar[AdapterKind | None] = "peft"
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    a PEFT LoRA folder on top of ``model``."""
    options: ClassVar[tuple[str, ...]] = ("device", "dtype", "batch_size", "n_threads")
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def __init__(self, config: BackendConfig) -> None:
        if not config.model:
            raise UsageError("the transformers backend needs a model folder, .gguf file or local id (--model PATH)")
        self.config = config
        self._folder, self._gguf = resolve_model(config.model)
        self._adapter: Path | None = None
        if config.adapter:
            self._adapter = Path(config.adapter).expanduser()
            problem = adapter_problem(self._adapter) or adapter_base_problem(self._adapter, config.model)
            if problem is not None:
                raise UsageError(problem)
        if config.n_threads:
            import torch

            torch.set_num_threads(config.n_threads)
        self.device = resolve_device(config.device)
        dtype = resolve_dtype(config.dtype, self.device)
        self._key = (str(self._folder.resolve()), self._gguf or "", self.device, str(dtype))
        self._digest: str | None = None

        size = config.batch_size or DEFAULT_BATCH.get(self.device.split(":")[0], 8)  # the first arm's, per base

        def load() -> _SharedBase:
            """The base loads on its batch worker's thread, which then runs every torch operation on it
            (adapters too): ``Batcher``'s docstring says why."""
            shared = _SharedBase(None, None, self.device)
            shared.batcher = Batcher(functools.partial(decode_batch, shared), size)
            try:
                shared.model, shared.tokenizer = shared.batcher.call(
                    functools.partial(load_base, self._folder, self._gguf, self.device, dtype))
            except BaseException:
                shared.batcher.close()
                raise
            return shared

        self._base: _SharedBase | None = _POOL.acquire(self._key, load)
        self._adapter_name = (self.batcher.call(functools.partial(self._load_adapter, self._base))
                              if self._adapter else None)

    @property
    def batcher(self) -> Batcher:
        assert self._base is not None and self._base.batcher is not None
        return self._base.batcher

    def _load_adapter(self, base: _SharedBase) -> str:
        """On the base's batch worker thread, between batches: load this arm's adapter by name onto the shared
        base (once per folder)."""
        from peft import PeftModel

        assert self._adapter is not None
        key = str(self._adapter.resolve())
        if key in base.adapters:
            base.adapter_users[key] += 1
            return base.adapters[key]
        name = f"a{base.loaded}"
        try:
            if not isinstance(base.model, PeftModel):
                base.model = PeftModel.from_pretrained(base.model, str(self._adapter), adapter_name=name,
                                                       is_trainable=False)
            else:
                base.model.load_adapter(str(self._adapter), adapter_name=name, is_trainable=False)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise UsageError(f"adapter {self._adapter} does not load onto {self.config.model}: {exc}") from None
        base.model.eval()
        base.row_lora = RowLoRA.attach(base.model, base.row_lora)
        base.adapters[key] = name
        base.adapter_users[key] = 1
        base.loaded += 1
        return name

    async def served_sampling(self) -> dict[str, ServedValue]:
        """The model's ``generation_config`` as this decoder applies it when a request sends no sampling."""
        model = self._base.model if self._base is not None else None
        return generation_config_sampling(model)

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        if self._digest is None:
            await self.model_digest()
        return await submit(self._base, self._adapter_name, request, self._completion, stop)

    def _completion(self, row: Row) -> Completion:
        return row_completion(row, digest=self._digest,
                              endpoint=str(self._folder / self._gguf) if self._gguf else str(self._folder),
                              extra={"adapter": str(self._adapter) if self._adapter else "", "device": self.device})

    async def model_digest(self) -> str | None:
        if self._digest is None:
            if self._gguf:
                model = await asyncio.to_thread(file_sha256, self._folder / self._gguf)
                extra = await asyncio.to_thread(weights_digest, [self._adapter]) if self._adapter else None
                self._digest = model if extra is None else f"{model}+{extra}"
            else:
                folders = [self._folder] + ([self._adapter] if self._adapter else [])
                self._digest = await asyncio.to_thread(weights_digest, folders)
        return self._digest

    async def aclose(self) -> None:
        if self._base is not None:
            base, self._base = self._base, None
            if self._adapter is not None and self._adapter_name is not None:
                assert base.batcher is not None
                await asyncio.to_thread(base.batcher.call,
                                        functools.partial(_release_adapter, base, str(self._adapter.resolve())))
            _POOL.release(self._key)


def _release_adapter(base: _SharedBase, key: str) -> None:
    """An arm over adapter ``key`` closed: when it was the adapter's last arm and the base stays loaded for
    other arms, unload the adapter's weights (``forgegate watch`` probes checkpoint after checkpoint over one
    base; each adapter would otherwise stay in memory until the watch ends). On the base's batch worker
    thread: never while a batch is decoding."""
    base.adapter_users[key] -= 1
    if base.adapter_users[key] > 0 or base.users <= 1:  # still used, or the whole base goes now anyway
        return
    name = base.adapters.pop(key)
    del base.adapter_users[key]
    if base.adapters:
        base.model.delete_adapter(name)
        base.row_lora = RowLoRA.attach(base.model, base.row_lora)
    else:  # PEFT cannot run with no adapter at all: back to the plain base (its weights were never merged)
        base.model = base.model.unload()
        base.model.eval()
        base.row_lora = None
