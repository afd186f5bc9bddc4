"""Hugging Face ``transformers`` models on CPU, with an optional PEFT LoRA adapter per arm.

``model`` is a model folder or a locally cached id (never downloaded:
``local_files_only=True``); ``adapter`` a PEFT adapter folder. Arms over the same
base share one loaded base model: ``base-unadapted``, ``ckpt1750`` and ``ckpt850``
hold one copy of the weights, with each adapter loaded by name and switched in
under the model's lock (the base arm runs with adapters disabled).

Decoding is forgegate's own loop so that every request is explicit: a
``torch.Generator`` seeded from the request (no global RNG), temperature 0 is
greedy, top-p nucleus sampling otherwise, the cap is ``max_tokens`` new tokens,
the count is exact (one token per step; an end-of-sequence token ends the
generation and is not counted), finish is 'stop' on EOS or a stop string and
'length' at the cap. torch is imported only when a model is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgegate.backends.base import BACKENDS, BackendConfig, BackendError
from forgegate.core.records import Completion, FinishReason, GenerationRequest
from forgegate.errors import UsageError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
DIGEST_EXTRA_FILES = ("config.json", "adapter_config.json", "generation_config.json")


def resolve_model_dir(model: str) -> Path:
    """A model folder, or the local cache snapshot of a hub id; never a download."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True))
    except Exception as exc:  # noqa: BLE001  (any failure means: not available locally)
        raise UsageError(f"transformers model '{model}' is neither a folder nor in the local Hugging Face "
                         f"cache (forgegate never downloads): {exc}") from None


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


@dataclass
class _SharedBase:
    """One loaded base model and tokenizer, shared by every arm over it; adapters load by name."""

    model: Any
    tokenizer: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    adapters: dict[str, str] = field(default_factory=dict)  # adapter folder -> adapter name
    users: int = 0


class _Pool:
    """Loaded bases keyed by resolved model folder (a cache, released when its last arm closes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bases: dict[str, _SharedBase] = {}

    def acquire(self, folder: Path) -> _SharedBase:
        key = str(folder.resolve())
        with self._lock:
            base = self._bases.get(key)
            if base is None:
                base = _SharedBase(*_load_base(folder))
                self._bases[key] = base
            base.users += 1
            return base

    def release(self, folder: Path) -> None:
        key = str(folder.resolve())
        with self._lock:
            base = self._bases.get(key)
            if base is not None:
                base.users -= 1
                if base.users <= 0:
                    del self._bases[key]


_POOL = _Pool()


def _load_base(folder: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=torch.float32)
    model.eval()
    return model, tokenizer


@BACKENDS.register("transformers")
class TransformersBackend:
    """A local Hugging Face causal LM (+ optional PEFT LoRA adapter), generated on CPU."""

    name = "transformers"

    def __init__(self, config: BackendConfig) -> None:
        if not config.model:
            raise UsageError("the transformers backend needs a model folder or local id (--model PATH)")
        self.config = config
        self._folder = resolve_model_dir(config.model)
        self._adapter: Path | None = None
        if config.adapter:
            self._adapter = Path(config.adapter).expanduser()
            if not (self._adapter / "adapter_config.json").is_file():
                raise UsageError(f"adapter '{config.adapter}' is not a PEFT adapter folder "
                                 "(no adapter_config.json)")
        self._base: _SharedBase | None = None
        self._digest: str | None = None
        self._init_lock = threading.Lock()

    def _ensure_loaded(self) -> _SharedBase:
        with self._init_lock:
            if self._base is None:
                if self.config.n_threads:
                    import torch

                    torch.set_num_threads(self.config.n_threads)
                self._base = _POOL.acquire(self._folder)
            return self._base

    def _activate(self, base: _SharedBase) -> Any:
        """Under ``base.lock``: the module to call, with this arm's adapter (or none) active."""
        if self._adapter is None:
            return base.model
        from peft import PeftModel

        key = str(self._adapter.resolve())
        if not isinstance(base.model, PeftModel):
            base.model = PeftModel.from_pretrained(base.model, str(self._adapter), adapter_name="a0",
                                                   is_trainable=False)
            base.adapters[key] = "a0"
        elif key not in base.adapters:
            name = f"a{len(base.adapters)}"
            base.model.load_adapter(str(self._adapter), adapter_name=name, is_trainable=False)
            base.adapters[key] = name
        base.model.set_adapter(base.adapters[key])
        base.model.eval()
        return base.model

    def _encode(self, tokenizer: Any, request: GenerationRequest) -> list[int]:
        if request.chat and getattr(tokenizer, "chat_template", None):
            messages = [{"role": "system", "content": request.system}] if request.system else []
            messages.append({"role": "user", "content": request.prompt})
            text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            prompt = f"{request.system}\n\n{request.prompt}" if request.system else request.prompt
            ids = list(tokenizer(prompt, add_special_tokens=True)["input_ids"])
        if not ids:
            if tokenizer.bos_token_id is None:
                raise BackendError("empty prompt and the tokenizer has no BOS token to start from",
                                   transient=False)
            ids = [tokenizer.bos_token_id]
        return ids

    def _generate_sync(self, request: GenerationRequest) -> Completion:
        import torch

        base = self._ensure_loaded()
        started = time.perf_counter()
        with base.lock:
            model = self._activate(base)
            tokenizer = base.tokenizer
            context = model.disable_adapter() if self._adapter is None and hasattr(model, "disable_adapter") \
                else contextlib.nullcontext()
            with context, torch.inference_mode():
                return self._decode(model, tokenizer, request, started)

    def _decode(self, model: Any, tokenizer: Any, request: GenerationRequest, started: float) -> Completion:
        import torch

        prompt_ids = self._encode(tokenizer, request)
        eos = _eos_ids(model, tokenizer)
        generator = torch.Generator(device="cpu")
        generator.manual_seed(request.seed if request.seed is not None else 0)
        input_ids = torch.tensor([prompt_ids], dtype=torch.long)
        cache_kw = _cache_keyword(model)
        cache: Any = None
        generated: list[int] = []
        token_texts: list[str] = []
        text = ""  # committed text: the decode so far, less a trailing partial UTF-8 character
        finish: FinishReason = "length"
        ttft: float | None = None
        stopped_by_string = False
        for _ in range(request.max_tokens):
            out = model(input_ids=input_ids, use_cache=True, **{cache_kw: cache})
            cache = out["cache"] if "cache" in out else out.get("past_key_values")
            next_id = _pick(out.logits[0, -1].float(), request.temperature, request.top_p, generator)
            if ttft is None:
                ttft = time.perf_counter() - started
            if next_id in eos:
                finish = "stop"
                break
            generated.append(next_id)
            full = tokenizer.decode(generated, skip_special_tokens=True)
            cut = _first_stop(full, request.stop, len(text))
            if cut is not None:
                token_texts.append(full[len(text):])
                text = full[:cut]
                token_texts = _trim_pieces(token_texts, len(text))
                finish = "stop"
                stopped_by_string = True
                break
            committed = full.rstrip("\ufffd")
            token_texts.append(committed[len(text):])
            text = committed
            input_ids = torch.tensor([[next_id]], dtype=torch.long)
        if generated and not stopped_by_string:
            full = tokenizer.decode(generated, skip_special_tokens=True)
            token_texts[-1] += full[len(text):]  # a trailing partial character is kept as decoded
            text = full
        return Completion(
            text=text, tokens=len(generated), token_source="tokenizer", finish=finish,
            latency_s=time.perf_counter() - started, ttft_s=ttft, token_texts=tuple(token_texts),
            model_digest=self._digest, endpoint=str(self._folder),
            extra={"adapter": str(self._adapter) if self._adapter else "", "device": "cpu",
                   "prompt_tokens": str(len(prompt_ids))}, prompt_tokens=len(prompt_ids))

    async def generate(self, request: GenerationRequest) -> Completion:
        if self._digest is None:
            await self.model_digest()
        try:
            return await asyncio.to_thread(self._generate_sync, request)
        except BackendError:
            raise
        except (UsageError, OSError, ValueError, RuntimeError) as exc:
            raise BackendError(f"transformers generation failed: {exc}", transient=False) from exc

    async def model_digest(self) -> str | None:
        if self._digest is None:
            folders = [self._folder] + ([self._adapter] if self._adapter else [])
            self._digest = await asyncio.to_thread(weights_digest, folders)
        return self._digest

    async def aclose(self) -> None:
        with self._init_lock:
            if self._base is not None:
                self._base = None
                _POOL.release(self._folder)


def _trim_pieces(pieces: list[str], length: int) -> list[str]:
    """Cut per-token texts so that they join to the first ``length`` characters (one entry per token)."""
    out: list[str] = []
    used = 0
    for piece in pieces:
        keep = piece[: max(0, length - used)]
        out.append(keep)
        used += len(keep)
    return out


def _cache_keyword(model: Any) -> str:
    """The forward() keyword of the KV cache: 'cache' in transformers >= 5.24, 'past_key_values' before."""
    import inspect

    inner = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "cache" if "cache" in inspect.signature(inner.forward).parameters else "past_key_values"


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    config_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if isinstance(config_eos, int):
        ids.add(config_eos)
    elif isinstance(config_eos, list | tuple):
        ids.update(int(i) for i in config_eos)
    return ids


def _pick(logits: Any, temperature: float, top_p: float, generator: Any) -> int:
    """Greedy at temperature 0; otherwise temperature then nucleus (top-p) sampling with ``generator``."""
    import torch

    if temperature <= 0:
        return int(torch.argmax(logits).item())
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_p < 1.0:
        sorted_probs, order = torch.sort(probs, descending=True)
        keep = torch.cumsum(sorted_probs, dim=-1) - sorted_probs < top_p
        keep[0] = True
        filtered = torch.zeros_like(probs)
        filtered[order[keep]] = sorted_probs[keep]
        probs = filtered / filtered.sum()
    return int(torch.multinomial(probs, 1, generator=generator).item())


def _first_stop(text: str, stops: tuple[str, ...], already: int) -> int | None:
    """Where the earliest stop string begins, if one ends inside the newly decoded text."""
    best: int | None = None
    for stop in stops:
        if not stop:
            continue
        index = text.find(stop, max(0, already - len(stop) + 1))
        if index != -1 and (best is None or index < best):
            best = index
    return best
