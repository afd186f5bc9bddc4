"""One batch of the transformers backend, decoded step by step (run in the base's batch worker thread).

Prompts are left-padded with an attention mask and per-row positions, so padding changes nothing a
row attends to. A row that finishes is answered at once and leaves the batch (its cache rows go);
while there is room, requests that arrived meanwhile join: their prompts are prefilled on their
own, and their caches are left-padded to the batch's length and stacked onto it (for the plain
dynamic KV cache; with another cache type they wait for the next batch).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from forgegate.backends._batching import IncrementalDetokenizer, Job, Row, pick_rows
from forgegate.backends._row_lora import BASE_ADAPTER
from forgegate.backends.base import BackendError
from forgegate.core.records import GenerationRequest


def encode(tokenizer: Any, request: GenerationRequest) -> list[int]:
    """The prompt's token ids: the chat template for a chat request (when the tokenizer has one)."""
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
            raise BackendError("empty prompt and the tokenizer has no BOS token to start from", transient=False)
        ids = [tokenizer.bos_token_id]
    return ids


def eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    config_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if isinstance(config_eos, int):
        ids.add(config_eos)
    elif isinstance(config_eos, list | tuple):
        ids.update(int(i) for i in config_eos)
    return ids


APPLIED_KEYS = ("do_sample", "temperature", "top_p")
"""The model's ``generation_config`` settings this decoder applies when a request sends no sampling."""
UNAPPLIED_KEYS = ("top_k", "min_p", "typical_p", "repetition_penalty", "no_repeat_ngram_size")
"""Settings a ``generation_config`` may hold that this decoder does not apply (recorded as such)."""


def served_settings(model: Any) -> tuple[float, float]:
    """(temperature, top_p) the model's own ``generation_config`` serves with: greedy (0) unless it samples
    (``do_sample``), then its temperature and top_p (1 where unset)."""
    config = getattr(model, "generation_config", None)
    if config is None or not getattr(config, "do_sample", False):
        return 0.0, 1.0
    temperature = getattr(config, "temperature", None)
    top_p = getattr(config, "top_p", None)
    return (1.0 if temperature is None else float(temperature)), (1.0 if top_p is None else float(top_p))


def row_settings(request: GenerationRequest, served: tuple[float, float]) -> tuple[float, float]:
    """A request's (temperature, top_p): what it sends, the served value where it sends none."""
    return (served[0] if request.temperature is None else request.temperature,
            served[1] if request.top_p is None else request.top_p)


def forward_keywords(model: Any) -> tuple[str, dict[str, Any]]:
    """The forward() keyword of the KV cache ('cache' in transformers >= 5.24, 'past_key_values' before), and
    ``logits_to_keep=1`` where the model takes it (only the last position's logits are sampled from)."""
    inner = model.get_base_model() if hasattr(model, "get_base_model") else model
    parameters = inspect.signature(inner.forward).parameters
    keep = {"logits_to_keep": 1} if "logits_to_keep" in parameters else {}
    return ("cache" if "cache" in parameters else "past_key_values"), keep


class _Batch:
    """The rows in flight and their cache, mask, positions and next input tokens."""

    def __init__(self, base: Any) -> None:
        import torch

        self.torch = torch
        self.base = base
        self.model, self.tokenizer, self.device = base.model, base.tokenizer, base.device
        self.eos = eos_ids(self.model, self.tokenizer)
        self.served = served_settings(self.model)
        self.pad = int(self.tokenizer.pad_token_id)
        self.cache_kw, self.keep_last = forward_keywords(self.model)
        self.peft = bool(base.adapters)
        self.row_lora = base.row_lora  # adapters load and unload on this thread, never during a batch
        self.rows: list[Row] = []
        self.cache: Any = None
        self.mask: Any = None
        self.positions: Any = None
        self.tokens: list[int] = []

    def rows_for(self, jobs: list[Job]) -> list[Row]:
        rows = []
        for job in jobs:
            try:
                ids = encode(self.tokenizer, job.request)
            except BackendError as exc:
                job.resolve(None, exc)
                continue
            generator = self.torch.Generator(device="cpu")
            generator.manual_seed(job.request.seed if job.request.seed is not None else 0)
            rows.append(Row(job, ids, generator, IncrementalDetokenizer(self._decode)))
        return rows

    def _decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=True))

    def _forward(self, rows: list[Row], input_ids: Any, mask: Any, positions: Any, cache: Any) -> tuple[Any, Any]:
        extra: dict[str, Any] = {self.cache_kw: cache, **self.keep_last}
        if self.peft:
            adapters = [r.job.adapter or BASE_ADAPTER for r in rows]
            if self.row_lora is not None:
                self.row_lora.rows(adapters)
            else:  # a LoRA variant or a LoRA on a non-linear layer: PEFT mixes the batch itself
                extra["adapter_names"] = adapters
        try:
            out = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=True,
                             **extra)
        finally:
            if self.row_lora is not None:
                self.row_lora.clear()
        cache = out["cache"] if "cache" in out else out.get("past_key_values")
        return cache, out.logits[:, -1].float().cpu()

    def _sample(self, rows: list[Row], logits: Any) -> list[int]:
        tokens = pick_rows(logits, [row_settings(r.job.request, self.served) for r in rows],
                           [r.generator for r in rows])
        for row, token in zip(rows, tokens, strict=True):
            row.step(token, self.eos)
        return tokens

    def add(self, rows: list[Row]) -> None:
        """Prefill ``rows`` (left-padded among themselves), sample their first tokens, stack them on the batch."""
        torch = self.torch
        width = max(len(r.prompt_ids) for r in rows)
        ids = torch.tensor([[self.pad] * (width - len(r.prompt_ids)) + r.prompt_ids for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r.prompt_ids)) + [1] * len(r.prompt_ids) for r in rows],
                            device=self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        cache, logits = self._forward(rows, ids, mask, positions, None)
        tokens = self._sample(rows, logits)
        if self.cache is None:
            self.cache, self.mask = cache, mask
        else:
            self.mask = _stack_caches(torch, self.cache, self.mask, cache, mask)
        self.positions = positions[:, -1:] if self.positions is None else torch.cat(
            [self.positions, positions[:, -1:]])
        self.rows += rows
        self.tokens += tokens
        self._drop_finished()

    def joinable(self) -> bool:
        return self.cache is None or _plain_dynamic(self.cache)

    def step(self) -> None:
        """One decoding step for every row in flight."""
        torch = self.torch
        input_ids = torch.tensor(self.tokens, device=self.device).unsqueeze(-1)
        self.mask = torch.cat([self.mask, self.mask.new_ones((len(self.rows), 1))], dim=-1)
        self.positions = self.positions + 1
        self.base.batcher.widest = max(self.base.batcher.widest, self.mask.shape[-1])
        self.cache, logits = self._forward(self.rows, input_ids, self.mask, self.positions, self.cache)
        self.tokens = self._sample(self.rows, logits)
        self._drop_finished()

    def _drop_finished(self) -> None:
        """Resolve the rows that finished and drop them, with the rows nobody waits for any more.

        A row whose request was cancelled (Ctrl-C, a deadline) is dropped at the next step: a batch of 33
        probe prompts decoded to its end after a Ctrl-C kept the process past two minutes.
        """
        gone = self.base.batcher.abandoned
        keep = [i for i, row in enumerate(self.rows) if not row.done and not gone and not row.job.future.done()]
        for row in self.rows:
            if row.done:
                row.job.resolve(row.job.make_completion(row))
        if len(keep) == len(self.rows):
            return
        if not keep:
            self.rows, self.tokens, self.cache, self.mask, self.positions = [], [], None, None, None
            return
        index = self.torch.tensor(keep, device=self.device)
        self.cache.batch_select_indices(index)
        self.rows = [self.rows[i] for i in keep]
        self.tokens = [self.tokens[i] for i in keep]
        self.mask, self.positions = self.mask[index], self.positions[index]
        self._trim_padding()

    def _trim_padding(self) -> None:
        """Drop the leading cache columns no row in flight attends to.

        Rows that join are left-padded to the batch's width, so without this the width only grows
        while rows keep joining: every step would attend over the whole history of the batch (at the
        lv-hemingway design's 720 requests, thousands of masked columns a row). Positions are per
        row, so cutting columns every row masks changes nothing a row computes.
        """
        if not _plain_dynamic(self.cache):
            return
        first = int(self.mask.any(dim=0).int().argmax())
        if first == 0:
            return
        for layer in self.cache.layers:
            layer.keys, layer.values = layer.keys[..., first:, :], layer.values[..., first:, :]
        self.mask = self.mask[:, first:]


def _plain_dynamic(cache: Any) -> bool:
    """Whether every layer of ``cache`` is a plain dynamic layer (keys/values tensors that can be padded)."""
    layers: list[Any] = list(getattr(cache, "layers", None) or [])
    return bool(layers) and all(type(layer).__name__ == "DynamicLayer" for layer in layers)


def _stack_caches(torch: Any, cache: Any, mask: Any, other: Any, other_mask: Any) -> Any:
    """Stack ``other`` under ``cache`` (in place), each left-padded to the longer; return the stacked mask."""
    width = max(mask.shape[-1], other_mask.shape[-1])

    def pad(tensor: Any, length: int) -> Any:
        return torch.nn.functional.pad(tensor, (0, 0, width - length, 0))

    for mine, theirs in zip(cache.layers, other.layers, strict=True):
        length, their_length = mine.keys.shape[-2], theirs.keys.shape[-2]
        mine.keys = torch.cat([pad(mine.keys, length), pad(theirs.keys, their_length)])
        mine.values = torch.cat([pad(mine.values, length), pad(theirs.values, their_length)])
    return torch.cat([torch.nn.functional.pad(mask, (width - mask.shape[-1], 0)),
                      torch.nn.functional.pad(other_mask, (width - other_mask.shape[-1], 0))])


def decode_batch(base: Any, jobs: list[Job], more: Callable[[int], list[Job]]) -> None:
    """Decode ``jobs`` to the end; while there is room (``base.batcher.batch_size``), take the jobs ``more``
    hands over into the batch."""
    import torch

    with torch.inference_mode():
        batch = _Batch(base)
        pending = batch.rows_for(jobs)
        while pending or batch.rows:
            if pending:
                batch.add(pending)
            if not batch.rows:
                return  # a new batch gathers its requests afresh (the worker waits a moment for them)
            batch.step()
            room = base.batcher.batch_size - len(batch.rows)
            pending = batch.rows_for(more(room)) if room > 0 and batch.rows and batch.joinable() else []
