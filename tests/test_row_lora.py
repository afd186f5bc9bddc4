"""Rows over different LoRA adapters in one batch (backends/_row_lora.py) give exactly what PEFT's own mixed
batch (``adapter_names``) gives, on a small torch model with two real PEFT adapters of different ranks.

Slow: it imports torch and PEFT (several seconds) and builds a model; the real SmolLM2 arms run in
tests/test_transformers_smollm2.py.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")
peft = pytest.importorskip("peft")

from forgegate.backends._row_lora import BASE_ADAPTER, RowLoRA  # noqa: E402

WIDTH = 24


class Toy(torch.nn.Module):  # type: ignore[misc]
    """Two attention-like projections and an output layer, batch first like a transformer's linear layers."""

    def __init__(self) -> None:
        super().__init__()
        self.q_proj = torch.nn.Linear(WIDTH, WIDTH)
        self.v_proj = torch.nn.Linear(WIDTH, WIDTH)
        self.out = torch.nn.Linear(WIDTH, 7)

    def forward(self, x: Any) -> Any:
        return self.out(torch.tanh(self.v_proj(torch.tanh(self.q_proj(x)))))


def _peft_model(**variant: Any) -> Any:
    torch.manual_seed(0)
    model = peft.get_peft_model(Toy(), peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                                       init_lora_weights=False, **variant), adapter_name="first")
    model.add_adapter("second", peft.LoraConfig(r=2, lora_alpha=6, target_modules=["q_proj"], init_lora_weights=False,
                                           **variant))
    return model.eval()


A, B = "first", "second"  # "second" targets q_proj only: its rows skip v_proj's LoRA
MIXES = ([BASE_ADAPTER] * 3, [A] * 3, [B, B], [A, BASE_ADAPTER, B, A], [BASE_ADAPTER, B])


@pytest.mark.parametrize("adapters", MIXES, ids=["+".join(m) for m in MIXES])
def test_each_row_gets_its_own_adapter_exactly_as_peft_mixes_a_batch(adapters: list[str]) -> None:
    model = _peft_model()
    x = torch.randn(len(adapters), 5, WIDTH, generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        expected = model(x, adapter_names=adapters)
        with model.disable_adapter():
            plain = model(x)
        row_lora = RowLoRA.attach(model)
        assert row_lora is not None
        row_lora.rows(adapters)
        got = model(x)
        row_lora.clear()
        cleared = model(x)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)
    torch.testing.assert_close(cleared, plain, rtol=0, atol=0)  # nothing stale reaches the next forward
    for row, name in enumerate(adapters):  # the test compares outputs the adapters really change
        assert torch.equal(got[row], plain[row]) == (name == BASE_ADAPTER)


def test_a_lora_variant_is_left_to_peft() -> None:
    model = _peft_model(use_dora=True)
    assert RowLoRA.attach(model) is None
    assert not any(getattr(m, "disable_adapters", False) for m in model.modules())  # PEFT's own path stays on


def test_detach_gives_the_layers_back_to_peft() -> None:
    model = _peft_model()
    x = torch.randn(2, 3, WIDTH)
    row_lora = RowLoRA.attach(model)
    assert row_lora is not None and RowLoRA.attach(model, row_lora) is row_lora  # attaching again adds no hook
    row_lora.detach(model)
    with torch.inference_mode():
        model.set_adapter(A)
        adapted = model(x)
        with model.disable_adapter():
            plain = model(x)
    torch.testing.assert_close(adapted, model(x, adapter_names=[A, A]))  # PEFT applies the adapter itself again
    assert not torch.equal(adapted, plain)


def test_a_layer_that_is_not_batch_first_is_refused() -> None:
    model = _peft_model()
    row_lora = RowLoRA.attach(model)
    assert row_lora is not None
    row_lora.rows([A, B, A])
    with pytest.raises(RuntimeError, match="not batch-first"), torch.inference_mode():
        model(torch.randn(2, 3, WIDTH))
