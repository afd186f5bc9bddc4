"""A model the caller already holds in memory (a model being trained), probed in place.

The training callback hands forgegate the trainer's own model object, adapter and all: nothing is
copied, saved or loaded again, so a probe sees exactly the weights of this step. The model is
switched to eval mode for the probe and back to the mode it was in when the backend closes; it
is decoded by the same batched decoder as the ``transformers`` backend (``backends/_decode.py``).

It is not in the backend registry: it cannot be made from a name and a config, only from a live
model object (``forgegate.training``).
"""

from __future__ import annotations

import functools
from typing import Any

from forgegate.backends._batching import Batcher, Row
from forgegate.backends._decode import decode_batch
from forgegate.backends.base import BackendConfig
from forgegate.backends.served_sampling import ServedValue
from forgegate.backends.transformers_backend import (
    DEFAULT_BATCH,
    _first_forward,
    _SharedBase,
    generation_config_sampling,
    row_completion,
    submit,
)
from forgegate.core.records import Completion, GenerationRequest, StreamStop
from forgegate.errors import UsageError


def model_device(model: Any) -> str:
    """The device of the model's first parameter (where its inputs must go)."""
    try:
        return str(next(model.parameters()).device)
    except (StopIteration, AttributeError, TypeError):
        raise UsageError("the model to probe has no parameters (pass the torch model being trained)") from None


class InMemoryBackend:
    """Generates with a live ``model`` and ``tokenizer``; restores the model's train/eval mode on close."""

    name = "in-memory"

    def __init__(self, model: Any, tokenizer: Any, *, label: str, batch_size: int | None = None) -> None:
        tokenizer = getattr(tokenizer, "tokenizer", tokenizer)  # a processor carries its tokenizer
        if tokenizer is None or not callable(getattr(tokenizer, "decode", None)):
            raise UsageError("probing needs the model's tokenizer: pass it to the Trainer as processing_class "
                             "(or tokenizer=...) or to ForgegateCallback(tokenizer=...)")
        self.label = label
        self.config = BackendConfig(model=label)
        self._model = model
        self._tokenizer = tokenizer
        self._was_training = bool(getattr(model, "training", False))
        self._pad_was_unset = tokenizer.pad_token_id is None
        if self._pad_was_unset:
            tokenizer.pad_token = tokenizer.eos_token  # only for the probe's padding; put back on close
        self.device = model_device(model)
        model.eval()
        _first_forward(model, self.device)  # in this thread, not the batch worker's (see _first_forward)
        base = _SharedBase(model, tokenizer, self.device)
        size = batch_size or DEFAULT_BATCH.get(self.device.split(":")[0], 8)
        base.batcher = Batcher(functools.partial(decode_batch, base), size)
        self._base: _SharedBase | None = base

    async def served_sampling(self) -> dict[str, ServedValue]:
        """The model's ``generation_config`` as forgegate's decoder applies it (see the transformers backend)."""
        return generation_config_sampling(self._model)

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        return await submit(self._base, None, request, self._completion, stop)

    def _completion(self, row: Row) -> Completion:
        return row_completion(row, digest=None, endpoint=self.label, extra={"device": self.device})

    async def model_digest(self) -> str | None:
        """None: hashing every weight of a model in training at each probe would cost more than the probe."""
        return None

    async def aclose(self) -> None:
        if self._base is None:
            return
        if self._base.batcher is not None:
            self._base.batcher.close()
        self._base = None
        if self._was_training:
            self._model.train()
        if self._pad_was_unset:
            self._tokenizer.pad_token = None
