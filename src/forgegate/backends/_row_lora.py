"""Each row of a batch through its own LoRA adapter, at the cost of one adapter for the whole batch.

PEFT mixes adapters in one batch with ``adapter_names``: each forward registers a hook on every LoRA
layer and, in each layer, gathers and scatters every adapter's rows with Python index lists. Measured
on SmolLM2-135M, 32 rows over three arms (base and two rank-16 adapters), 2 CPU cores: a decoding
step took 277 ms against 232 ms with one adapter for every row (medians of 4), and the lv-hemingway
design at 720 generations ran at 0.85x of transformers' own ``generate``, which runs one adapter per
batch. Here the adapters stay loaded in PEFT, PEFT's own LoRA path is switched off, and a forward hook
installed once on each LoRA linear layer adds each adapter's product to its rows: with index tensors
made once per step (not per layer), and on the whole batch without indexing when every row is over
one adapter.

Only plain LoRA on linear layers takes this path (:meth:`RowLoRA.attach` checks every layer); a
variant (DoRA and the others PEFT keeps in ``lora_variant``) or a LoRA on another kind of layer leaves
the model to PEFT's ``adapter_names``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

BASE_ADAPTER = "__base__"
"""PEFT's name for "no adapter" in a mixed batch (a base-arm row)."""


class RowLoRA:
    """The LoRA layers of one PEFT model, hooked to apply each row's adapter; :meth:`rows` says which."""

    def __init__(self) -> None:
        self._hooked: set[int] = set()
        self._handles: list[Any] = []
        self._groups: list[tuple[str, Any]] = []
        self._rows = 0

    @classmethod
    def attach(cls, model: Any, current: RowLoRA | None = None) -> RowLoRA | None:
        """Hook ``model``'s LoRA layers (those not hooked yet, after an adapter loads) and switch PEFT's own
        LoRA path off; None, with PEFT's path left on, when some layer is not plain LoRA on a linear layer."""
        from peft.tuners.lora.layer import Linear, LoraLayer

        layers: list[Any] = [m for m in model.modules() if isinstance(m, LoraLayer)]
        if not layers or any(type(m) is not Linear or m.lora_variant for m in layers):
            if current is not None:
                current.detach(model)
            return None
        row_lora = current or cls()
        for layer in layers:
            if id(layer) not in row_lora._hooked:
                row_lora._hooked.add(id(layer))
                row_lora._handles.append(layer.register_forward_hook(row_lora._add_products))
        model.base_model.disable_adapter_layers()
        return row_lora

    def detach(self, model: Any) -> None:
        """Remove the hooks and give the LoRA layers back to PEFT."""
        for handle in self._handles:
            handle.remove()
        self._handles, self._hooked, self._groups = [], set(), []
        model.base_model.enable_adapter_layers()

    def rows(self, adapters: Sequence[str]) -> None:
        """The adapter of each row of the next forward (``BASE_ADAPTER`` for none), in batch order."""
        import torch

        self._rows = len(adapters)
        groups: dict[str, list[int]] = {}
        for index, name in enumerate(adapters):
            if name != BASE_ADAPTER:
                groups.setdefault(name, []).append(index)
        self._groups = [(name, None if len(index) == len(adapters) else torch.tensor(index))
                        for name, index in groups.items()]

    def clear(self) -> None:
        """No adapter on any row until :meth:`rows` is called again (nothing stale reaches a later forward)."""
        self._groups, self._rows = [], 0

    def _add_products(self, layer: Any, inputs: tuple[Any, ...], result: Any) -> Any:
        if not self._groups:
            return result
        x = inputs[0]
        if x.shape[0] != self._rows:
            raise RuntimeError(f"a LoRA layer saw {x.shape[0]} rows where the batch has {self._rows}: this model's "
                               "layers are not batch-first, so rows cannot take different adapters")
        for name, index in self._groups:
            if name not in layer.lora_A:  # this adapter does not target this layer
                continue
            lora_a, lora_b = layer.lora_A[name], layer.lora_B[name]
            rows = x if index is None else x.index_select(0, index)
            product = lora_b(lora_a(rows.to(lora_a.weight.dtype))) * layer.scaling[name]
            if index is None:
                result = result + product.to(result.dtype)
            else:
                result.index_add_(0, index, product.to(result.dtype))
        return result
